#pragma once
// A scenario's $.effects: what an iteration loses beyond compute and communication, and the empirical
// distributions (a fleet's GPUs, a machine's jobs) its samples draw time factors from.

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

// Where GPU time factor files (effects' gpu_time_factors) live, under the data folder.
inline constexpr const char* kGpuTimeFactorsFolder = "models/gpu-speed";
// Where job time factor files (effects' job_time_factors, written by analysis/measure_job_speed) live.
inline constexpr const char* kJobTimeFactorsFolder = "models/job-speed";

// Reads $.effects of `json` into `scenario` (its effects and sourced effects); InvalidArgument naming the
// file and field of anything wrong. Nothing where the scenario has no $.effects.
void readScenarioEffects(const JsonReader& root, const nlohmann::json& json, Scenario& scenario);

// Gives `scenario` the job time factors of `nameOrPath` (a name under models/job-speed/, or a path relative
// to the working directory), replacing any its file gave; InvalidArgument naming `field` (a flag) or the
// factors file's own field.
void useJobTimeFactors(Scenario& scenario, const std::string& nameOrPath, const std::string& field);

}  // namespace ddl
