#pragma once
// `ddlsim algorithms [--names]`: the algorithms the registry holds, with their collective, the options each
// takes and a line on what it does; --names gives the names alone, one per line, for scripts.

#include <CLI/CLI.hpp>

namespace ddl {

void addAlgorithmsCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
