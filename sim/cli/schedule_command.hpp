#pragma once
// `ddlsim schedule`: generate a collective's schedule, summarise it per rank, cost it, verify it, dump it.

#include <CLI/CLI.hpp>

namespace ddl {

// Adds the subcommand to `app`; its callback runs it and stores the exit code in `exitCode`.
void addScheduleCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
