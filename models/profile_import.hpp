#pragma once
// A PyTorch profile of one training step (`python3 -m ddlscale_torch.profile`) as a model file: the gradients
// in the order backward produced them, each with its measured backward time, and the forward pass and the
// optimizer step as measured, in a profile of the given GPU type whose times a workload takes as they are
// (MeasuredBreakdown). So ddlsim predicts the very model that was measured, not one split by assumptions.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ddl {

// The model file's JSON for `profile` (read from `path`, which errors name with the JSON path), as GPU type
// `gpu` and named `name` (the profile's model where empty). Throws InvalidArgument naming the field of
// anything malformed; what it returns loads with Model::fromJson.
nlohmann::json modelFromProfile(const nlohmann::json& profile, const std::string& path, const std::string& gpu,
                                const std::string& name);

}  // namespace ddl
