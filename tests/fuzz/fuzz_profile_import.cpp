// libFuzzer harness: PyTorch profiles (ddlscale_torch.profile), imported as `ddlsim model import` does, then
// the model file read back and turned into its training workload and iteration.

#include "algorithms/training/iteration_plan.hpp"
#include "models/model.hpp"
#include "models/profile_import.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    const nlohmann::json file = ddl::modelFromProfile(json, ddl::fuzz::kSource, "cpu-rank", "");
    const ddl::Model model = ddl::Model::fromJson(file, ddl::fuzz::kSource);
    for (const ddl::ModelProfile& profile : model.profiles()) {
      const ddl::IterationPlan plan(model.workload(profile.gpu, profile.batch, profile.precision), 25 << 20, true);
      if (!(plan.workload().computeSeconds() > 0)) __builtin_trap();  // a workload must take time
    }
  });
  return 0;
}
