#pragma once
// What ddlsim SCENARIO --sensitivity writes: the table of each input's swing (sim/sweep/sensitivity.hpp), and
// the document analysis/plot_sensitivity draws its tornado from.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "sim/sweep/sensitivity.hpp"

namespace ddl {

// The table, to `path` (empty: standard output), whole or not at all.
void writeSensitivityTable(const std::string& path, const Sensitivity& sensitivity);

// {"scenario", "samples", "points": [{"label", "gpus", "efficiency", "inputs": [{"input", "efficiency_p05",
// "efficiency_p50", "efficiency_p95"}]}]}: efficiencies as fractions.
nlohmann::json sensitivityToJson(const Sensitivity& sensitivity);

}  // namespace ddl
