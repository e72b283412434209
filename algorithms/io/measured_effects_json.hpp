#pragma once
// A results point's "measured_effects" (algorithms/training/measured_effects.hpp): the per-rank figures
// ddlrun train measured, and the estimates derived from them. A reader recomputes the estimates and
// refuses a file whose written ones disagree: they are derived, never a second source.

#include <nlohmann/json.hpp>

#include "algorithms/training/measured_effects.hpp"
#include "common/json_reader.hpp"

namespace ddl {

nlohmann::json measuredEffectsToJson(const MeasuredEffects& effects);
// `ranks`: the point's GPU count, which every per-rank list must have.
MeasuredEffects measuredEffectsFromJson(const JsonReader& reader, const nlohmann::json& json, int ranks);

}  // namespace ddl
