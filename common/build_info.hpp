#pragma once
// Which ddlscale wrote a results file: its version (CMake's project version) and the commit it was built
// from (git describe --always --dirty, or "unknown" outside a git checkout), written at every build.

#include <string_view>

namespace ddl {

std::string_view ddlscaleVersion();
std::string_view ddlscaleCommit();

}  // namespace ddl
