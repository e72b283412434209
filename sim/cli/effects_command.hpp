#pragma once
// `ddlsim effects`: every effect a scenario's "effects" may turn on, with its unit, its sourced central
// value and low-high range, the source and the confidence (algorithms/training/iteration_effects.hpp).

#include <CLI/CLI.hpp>

namespace ddl {

void addEffectsCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
