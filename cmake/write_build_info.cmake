# Writes OUT, a C++ file defining ddlscale's version and the commit it was built from, at every build; the
# file is rewritten only when its text changes, so that an unchanged commit rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DVERSION=... -DOUT=... -P write_build_info.cmake
find_program(GIT git)
set(commit "unknown")
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(NOT failed AND described)
    set(commit "${described}")
  endif()
endif()
set(text "// Written by cmake/write_build_info.cmake at build time.\n#include \"common/build_info.hpp\"\n\nnamespace ddl {\n\nstd::string_view ddlscaleVersion() { return \"${VERSION}\"; }\nstd::string_view ddlscaleCommit() { return \"${commit}\"; }\n\n}  // namespace ddl\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
