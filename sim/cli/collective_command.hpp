#pragma once
// `ddlsim collective`: one collective of one size on a topology, simulated: time, algbw, busbw.

#include <CLI/CLI.hpp>

namespace ddl {

void addCollectiveCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
