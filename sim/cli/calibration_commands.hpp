#pragma once
// The subcommands of `ddlsim calibrate` (calibrate_command.hpp), one file each.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ddl {

// "a.json, b.json": the measured files a calibrated value says it came from.
inline std::string measuredFilesListed(const std::vector<std::string>& files) {
  std::string listed;
  for (const std::string& file : files) listed += (listed.empty() ? "" : ", ") + file;
  return listed;
}

void addEffectsCalibration(CLI::App& calibrate, int& exitCode);
void addNetworkCalibration(CLI::App& calibrate, int& exitCode);

}  // namespace ddl
