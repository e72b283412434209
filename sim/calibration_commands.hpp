#pragma once
// The subcommands of `ddlsim calibrate` (calibrate_command.hpp), one file each.

#include <CLI/CLI.hpp>

namespace ddl {

void addEffectsCalibration(CLI::App& calibrate, int& exitCode);
void addNetworkCalibration(CLI::App& calibrate, int& exitCode);

}  // namespace ddl
