#pragma once
// `ddlsim tune`: every configuration of a collective (algorithms/tuning/tuning_candidates.hpp)
// simulated at each size on one topology and GPU count, and the best per size written as a tuning table
// (algorithms/io/tuning_table.hpp) that `--algorithm auto --tuning FILE` runs.

#include <CLI/CLI.hpp>

namespace ddl {

void addTuneCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
