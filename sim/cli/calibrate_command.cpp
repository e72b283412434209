#include "sim/cli/calibrate_command.hpp"

#include "sim/cli/calibration_commands.hpp"

namespace ddl {

void addCalibrateCommand(CLI::App& app, int& exitCode) {
  CLI::App* calibrate = app.add_subcommand("calibrate", "Fit the simulator's parameters from ddlscale's own measurements.");
  calibrate->require_subcommand(1);
  addEffectsCalibration(*calibrate, exitCode);
  addNetworkCalibration(*calibrate, exitCode);
}

}  // namespace ddl
