# nlohmann/json, CLI11 and GoogleTest: the installed packages where there are any; otherwise the copies in
# DDLSCALE_DEPENDENCIES, the folder scripts/carry-dependencies makes (include/nlohmann, include/CLI,
# googletest/), for a machine that can install nothing (the GPU machine of scripts/validate-gpu). Each copy
# is looked for there alone, so a build that says it used them did.

function(carried_header_library target header)
  find_path(carried_${target}_include "${header}" PATHS "${DDLSCALE_DEPENDENCIES}/include" NO_DEFAULT_PATH)
  if(NOT carried_${target}_include)
    message(FATAL_ERROR "${target} is not installed, and ${header} is not in DDLSCALE_DEPENDENCIES/include "
                        "('${DDLSCALE_DEPENDENCIES}'): install it, or make the folder with scripts/carry-dependencies")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  target_include_directories(${target} SYSTEM INTERFACE "${carried_${target}_include}")
  message(STATUS "${target}: the copy in ${carried_${target}_include}")
endfunction()

find_package(nlohmann_json 3 QUIET)
if(NOT nlohmann_json_FOUND)
  carried_header_library(nlohmann_json::nlohmann_json nlohmann/json.hpp)
endif()
find_package(CLI11 QUIET)
if(NOT CLI11_FOUND)
  carried_header_library(CLI11::CLI11 CLI/CLI.hpp)
endif()

# GoogleTest, for the tests: installed, or built from the carried source with the project.
macro(find_googletest)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    if(NOT EXISTS "${DDLSCALE_DEPENDENCIES}/googletest/CMakeLists.txt")
      message(FATAL_ERROR "GoogleTest is not installed, and DDLSCALE_DEPENDENCIES ('${DDLSCALE_DEPENDENCIES}') has no "
                          "googletest/: install it, make the folder with scripts/carry-dependencies, or configure "
                          "with -DDDLSCALE_TESTS=OFF")
    endif()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    add_subdirectory("${DDLSCALE_DEPENDENCIES}/googletest" "${CMAKE_BINARY_DIR}/carried-googletest" EXCLUDE_FROM_ALL SYSTEM)
    # Not the project's warnings (nor GCC 12's false -Wrestrict in gtest.cc): someone else's code, as built.
    set_target_properties(gtest gtest_main PROPERTIES COMPILE_OPTIONS "-w")
    message(STATUS "GoogleTest: the copy in ${DDLSCALE_DEPENDENCIES}/googletest")
  endif()
endmacro()
