#pragma once
// The results schema ddlsim and ddlrun both write (see docs/results.md, "Results schema"): SI units, written in the
// key names.

#include <nlohmann/json_fwd.hpp>

#include "algorithms/training/scaling_point.hpp"

namespace ddl {

nlohmann::json resultsToJson(const ScalingResults& results);
// Throws InvalidArgument naming `source` and the JSON path of anything malformed.
ScalingResults resultsFromJson(const nlohmann::json& json, const std::string& source);

}  // namespace ddl
