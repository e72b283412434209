#pragma once
// `ddlsim platform TOPOLOGY [--nodes N] [--xml] [--out FILE]`: what a cluster's routes look like, or the
// cluster as a SimGrid platform file.

#include <CLI/CLI.hpp>

namespace ddl {

void addPlatformCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
