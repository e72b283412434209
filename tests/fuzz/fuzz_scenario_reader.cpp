// libFuzzer harness: scenario files, read (with the shipped topologies and models they name), then every
// point's algorithm options and the iteration plan worked out, as ddlsim does before it simulates.

#include "scenarios/scenario.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    const ddl::Scenario scenario = ddl::scenarioFromJson(json, ddl::fuzz::kSource);
    for (const ddl::ScenarioAlgorithm& algorithm : scenario.algorithms)
      for (int gpus : scenario.gpuCounts) scenario.optionsFor(algorithm, gpus);
    scenario.iterationPlan(1);
  });
  return 0;
}
