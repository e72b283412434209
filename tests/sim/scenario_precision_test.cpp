// A scenario's precision chooses the compute profile, its gradients the element type the buckets are
// allreduced in: bf16 compute on an H200 takes the bf16 profile's time, and 2-byte gradients halve every
// bucket's bytes; results say both.

#include <gtest/gtest.h>

#include "sim/registered_engines.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {
namespace {

Scenario h200Scenario(const std::string& precision, const std::string& gradients) {
  Scenario scenario = loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json");
  scenario.topology = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/flat-h200-edr.json");
  scenario.gpu = "H200";
  scenario.batchPerGpu = 128;
  scenario.gpuCounts = {16};
  scenario.algorithms.resize(1);
  scenario.algorithms.front() = {"ring", {}, "$.algorithms[0]", ""};
  scenario.precision = precision;
  scenario.gradients = gradients;
  return scenario;
}

TEST(ScenarioPrecision, TheComputeProfileAndTheGradientTypeAreTheScenarios) {
  const ScalingResults fp32 = simulateScenario(h200Scenario("fp32", "fp32"), automaticEngine());
  const ScalingResults bf16 = simulateScenario(h200Scenario("bf16", "bf16"), automaticEngine());
  EXPECT_EQ(fp32.run.precision, "fp32");
  EXPECT_EQ(fp32.run.computePrecision, "fp32");
  EXPECT_EQ(bf16.run.precision, "bf16");
  EXPECT_EQ(bf16.run.computePrecision, "bf16");

  // The bf16 profile's iteration (32.9 ms at batch 128, against 129.0 ms in fp32, measured), less the same
  // optimizer step.
  const Model model = Model::load(std::string(DDLSCALE_SOURCE_DIR) + "/models/resnet50.json");
  EXPECT_DOUBLE_EQ(bf16.points.front().computeSeconds, model.workload("H200", 128, "bf16").computeSeconds());
  EXPECT_LT(bf16.points.front().computeSeconds, 0.3 * fp32.points.front().computeSeconds);

  // Buckets are cut by bytes (25 MiB): 2-byte gradients fill fewer of them (2 against 4 for ResNet-50).
  EXPECT_LT(bf16.points.front().collectives.size(), fp32.points.front().collectives.size());
}

TEST(ScenarioPrecision, TwoByteGradientsHalveEveryBucketsBytes) {
  // Buckets are cut at bucket_bytes, so halving the element size halves the number of buckets unless a
  // bucket holds one whole tensor; with one bucket of everything, the bytes are exactly halved.
  Scenario fp32 = h200Scenario("fp32", "fp32");
  Scenario bf16 = h200Scenario("fp32", "bf16");
  fp32.fusion.bucketBytes = bf16.fusion.bucketBytes = std::int64_t{1} << 40;
  const ScalingPoint wide = simulateScenario(fp32, automaticEngine()).points.front();
  const ScalingPoint narrow = simulateScenario(bf16, automaticEngine()).points.front();
  ASSERT_EQ(wide.collectives.size(), 1u);
  ASSERT_EQ(narrow.collectives.size(), 1u);
  EXPECT_EQ(narrow.collectives.front().bytes, wide.collectives.front().bytes / 2);
  EXPECT_EQ(narrow.computeSeconds, wide.computeSeconds) << "the same fp32 compute profile";
  EXPECT_LT(narrow.collectives.front().seconds, wide.collectives.front().seconds);
}

}  // namespace
}  // namespace ddl
