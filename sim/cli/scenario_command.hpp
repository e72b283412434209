#pragma once
// `ddlsim SCENARIO [--json|--csv] [--out FILE]`: simulate a scenario's sweep and report each point.

#include <CLI/CLI.hpp>

namespace ddl {

// Adds the scenario positional and its options to the top-level app; its callback runs when no
// subcommand was given.
void addScenarioCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
