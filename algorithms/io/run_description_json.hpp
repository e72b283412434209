#pragma once
// The parts of a results file that say how it was made, in both kinds of results (scaling points and
// collective sweeps): the "run" object (tool, version, commit, transport, compute scale, precision) and an
// algorithm's "parameters" ({"dims": [4, 16, 4], "inner": "ring", ...}).

#include <nlohmann/json_fwd.hpp>

#include "algorithms/training/scaling_point.hpp"
#include "common/json_reader.hpp"

namespace ddl {

nlohmann::json runDescriptionToJson(const RunDescription& run);
// InvalidArgument naming the JSON path of anything malformed.
RunDescription runDescriptionFromJson(const JsonReader& reader, const nlohmann::json& json);

// Only the options that are set: {} for ring.
nlohmann::json algorithmParametersToJson(const AlgorithmOptions& options);
AlgorithmOptions algorithmParametersFromJson(const JsonReader& reader, const nlohmann::json& json);

}  // namespace ddl
