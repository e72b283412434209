// Efficiency against a scenario's baseline_gpus: the baseline point's iteration over each point's, each
// algorithm as it runs at the baseline's GPU count; exactly 1 there, and the same whether or not $.gpus
// lists the baseline.

#include <map>

#include <gtest/gtest.h>

#include "sim/registered_engines.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {
namespace {

Scenario minskyScenario(std::vector<int> gpus, int baselineGpus) {
  Scenario scenario = loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json");
  scenario.gpuCounts = std::move(gpus);
  scenario.baselineGpus = baselineGpus;
  return scenario;
}

// Iteration seconds by (algorithm name, GPUs).
std::map<std::pair<std::string, int>, double> iterationTimes(const ScalingResults& results) {
  std::map<std::pair<std::string, int>, double> times;
  for (const ScalingPoint& point : results.points) times[{point.algorithmName, point.gpus}] = point.iterationSeconds;
  return times;
}

TEST(ScenarioBaseline, EfficiencyIsTheBaselineIterationOverEachPoints) {
  const auto times = iterationTimes(simulateScenario(minskyScenario({2, 4, 8}, 1), automaticEngine()));
  for (const ScalingPoint& point : simulateScenario(minskyScenario({4, 8}, 4), automaticEngine()).points) {
    EXPECT_EQ(point.baselineGpus, 4);
    const double baseline = times.at({point.algorithmName, 4});
    EXPECT_NEAR(point.baselineIterationSeconds(), baseline, 1e-9 * baseline) << point.label;
    EXPECT_NEAR(point.efficiency(), baseline / point.iterationSeconds, 1e-9) << point.label << " at " << point.gpus;
    if (point.gpus == 4) {
      EXPECT_DOUBLE_EQ(point.efficiency(), 1.0) << point.label;
    }
  }
  // A baseline $.gpus does not list is simulated all the same, and reported in no point of its own.
  const ScalingResults unlisted = simulateScenario(minskyScenario({4, 8}, 2), automaticEngine());
  for (const ScalingPoint& point : unlisted.points) {
    EXPECT_NE(point.gpus, 2);
    EXPECT_NEAR(point.efficiency(), times.at({point.algorithmName, 2}) / point.iterationSeconds, 1e-9) << point.label;
  }
}

TEST(ScenarioBaseline, OneGpuIsTheComputeAlone) {
  for (const ScalingPoint& point : simulateScenario(minskyScenario({1, 4}, 1), automaticEngine()).points) {
    EXPECT_EQ(point.baselineGpus, 1);
    EXPECT_EQ(point.baselineIterationSeconds(), point.computeSeconds);
    EXPECT_DOUBLE_EQ(point.efficiency(), point.computeSeconds / point.iterationSeconds);
  }
}

// A sharded plan steps the optimizer on a 1/N shard, so a point's compute is less than one GPU's; efficiency
// is still against one GPU alone, whole optimizer and all, the same as its samples'.
TEST(ScenarioBaseline, OneGpuAloneStepsTheWholeOptimizerUnderAShardedPlan) {
  Scenario scenario = minskyScenario({1, 4}, 1);
  scenario.parallelism = Parallelism::Zero2;
  scenario.algorithms.resize(1);
  ASSERT_EQ(scenario.algorithms[0].name, "ddl");
  scenario.algorithms[0] = ScenarioAlgorithm{"ring", {}, "$.algorithms[0]", ""};
  const double alone = scenario.iterationPlan().workload().computeSeconds();
  const double optimizer = scenario.iterationPlan().workload().optimizerSeconds;
  ASSERT_GT(optimizer, 0);
  for (const ScalingPoint& point : simulateScenario(scenario, automaticEngine()).points) {
    EXPECT_DOUBLE_EQ(point.baselineIterationSeconds(), alone) << point.gpus;
    EXPECT_NEAR(point.computeSeconds, alone - optimizer + optimizer / point.gpus, 1e-12) << point.gpus;
    EXPECT_DOUBLE_EQ(point.efficiency(), alone / point.iterationSeconds) << point.gpus;
  }
}

TEST(ScenarioBaseline, EachSamplesEfficiencyIsAgainstItsBaselineUnderTheSameDraw) {
  // Only the per-iteration overhead is uncertain, and it adds its draw to every iteration, the baseline's
  // too: each sample's times and efficiency follow from the central run's (whose overhead is 0) and that
  // sample's draw. A sample set against another sample's baseline, or read from another's simulation,
  // gives other percentiles.
  Scenario scenario = minskyScenario({4}, 2);
  scenario.algorithms.resize(1);
  scenario.effects = {};
  const EffectDeclaration* overhead = findEffectDeclaration("iteration_overhead_s");
  scenario.sourcedEffects = {overhead};
  scenario.effects.iterationOverheadSeconds = overhead->central;
  ASSERT_EQ(overhead->central, 0);
  constexpr int kSamples = 9;
  const ScalingResults results = simulateScenario(scenario, automaticEngine(), {1, kSamples});
  ASSERT_EQ(results.points.size(), 1u);
  const ScalingPoint& point = results.points.front();
  ASSERT_TRUE(point.interval);
  EXPECT_EQ(point.interval->samples, kSamples);
  const double atFour = point.iterationSeconds, atTwo = point.baselineIterationSeconds();
  std::vector<double> iterations, efficiencies;
  for (std::uint64_t sample = 0; sample < kSamples; ++sample) {
    const double drawn = sampleEffects(scenario.effects, scenario.sourcedEffects, sample).iterationOverheadSeconds;
    iterations.push_back(atFour + drawn);
    efficiencies.push_back((atTwo + drawn) / (atFour + drawn));
  }
  const Percentiles expectedIterations = percentilesOf(iterations), expectedEfficiency = percentilesOf(efficiencies);
  EXPECT_NEAR(point.interval->iterationSeconds.p05, expectedIterations.p05, 1e-9);
  EXPECT_NEAR(point.interval->iterationSeconds.p95, expectedIterations.p95, 1e-9);
  EXPECT_NEAR(point.interval->efficiency.p05, expectedEfficiency.p05, 1e-9);
  EXPECT_NEAR(point.interval->efficiency.p50, expectedEfficiency.p50, 1e-9);
  EXPECT_NEAR(point.interval->efficiency.p95, expectedEfficiency.p95, 1e-9);
  EXPECT_NEAR(point.interval->imagesPerSecond.p50, 4 * point.batchPerGpu / expectedIterations.p50, 1e-6);
  // The overhead's draws spread the samples.
  EXPECT_LT(point.interval->iterationSeconds.p05 + 1e-4, point.interval->iterationSeconds.p95);
}

TEST(ScenarioBaseline, AJobTimesItsOwnBaselineSoOneGpuKeepsEfficiencyOneInEverySample) {
  // Only the job's speed is uncertain: one GPU's samples take the central time times their job's factor,
  // and its efficiency, against the same job's GPU alone, is 1 in every sample. Four GPUs' samples spread.
  Scenario scenario = minskyScenario({1, 4}, 1);
  scenario.algorithms.resize(1);
  scenario.effects = {};
  scenario.sourcedEffects = {};
  scenario.effects.jobTimeFactors = {0.8, 1.0, 1.25};
  constexpr int kSamples = 16;
  const ScalingResults results = simulateScenario(scenario, automaticEngine(), {1, kSamples});
  ASSERT_EQ(results.points.size(), 2u);
  const ScalingPoint& alone = results.points[0];
  ASSERT_EQ(alone.gpus, 1);
  ASSERT_TRUE(alone.interval);
  std::vector<double> expected;
  for (std::uint64_t sample = 0; sample < kSamples; ++sample)
    expected.push_back(alone.iterationSeconds * sampleEffects(scenario.effects, {}, sample).jobTimeFactor);
  const Percentiles times = percentilesOf(expected);
  EXPECT_NEAR(alone.interval->iterationSeconds.p05, times.p05, 1e-9);
  EXPECT_NEAR(alone.interval->iterationSeconds.p95, times.p95, 1e-9);
  EXPECT_LT(times.p05 * 1.1, times.p95);
  EXPECT_NEAR(alone.interval->efficiency.p05, 1, 1e-12);
  EXPECT_NEAR(alone.interval->efficiency.p95, 1, 1e-12);
  const ScalingPoint& four = results.points[1];
  ASSERT_TRUE(four.interval);
  EXPECT_LT(four.interval->iterationSeconds.p05 * 1.05, four.interval->iterationSeconds.p95);
}

TEST(ScenarioBaseline, SharesOfSweepsDrawingJobsFromDifferentFilesAreDifferentSweeps) {
  // ddlsim --sweep-values joins shares only of one sweep: its signature names the file the jobs came from.
  Scenario scenario = minskyScenario({4}, 1);
  scenario.algorithms.resize(1);
  scenario.effects.jobTimeFactors = {0.9, 1.1};
  scenario.effects.jobTimeFactorsFile = "/somewhere/machine-a.json";
  const std::string a = ScenarioSweep(scenario, automaticEngine(), {1, 4}).signature();
  EXPECT_EQ(a, ScenarioSweep(scenario, automaticEngine(), {1, 4}).signature());
  scenario.effects.jobTimeFactorsFile = "/somewhere/machine-b.json";
  EXPECT_NE(a, ScenarioSweep(scenario, automaticEngine(), {1, 4}).signature());
}

TEST(ScenarioBaseline, ASlowerJobCarriesMessagesSlowerTooWhereItsCoresCarryThem) {
  // Eight nodes of the emulated cluster on this machine's two cores, whose carrying of messages costs them
  // compute (shared_host.network_core_s_per_byte): the cores are the bottleneck. Job factors {1, 2}: a
  // sample's job runs at 1/2, 1 or 2 times the profiled one's, and the 95th percentile of 32 samples is the
  // job twice as slow. It computes as a sweep with every compute time doubled does, and carries its
  // messages at half speed besides, so it is slower than that sweep (26% here); where carrying is free only
  // its reductions, a small part, differ. In both engines.
  for (const char* name : {"step", "message"}) {
    SCOPED_TRACE(name);
    const Engine& engine = engineNamed(name, "engine");
    Scenario scenario = loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/analysis/results/2026-12-03-network-cpu/tcp/raw/scenario-8.json");
    scenario.algorithms.resize(1);
    scenario.gpuCounts = {8};
    ASSERT_TRUE(scenario.topology.sharedHost);
    ASSERT_GT(scenario.topology.sharedHost->networkCoreSecondsPerByte, 0);
    for (const bool carryingCosts : {true, false}) {
      if (!carryingCosts) scenario.topology.sharedHost->networkCoreSecondsPerByte = 0;
      Scenario slow = scenario;
      slow.effects.jobTimeFactors = {1.0, 2.0};
      const double slowJob = simulateScenario(slow, engine, {1, 32}).points.at(0).interval->iterationSeconds.p95;
      const double doubledCompute = simulateScenario(scenario, engine, {2, 0}).points.at(0).iterationSeconds;
      if (carryingCosts) {
        EXPECT_GT(slowJob, doubledCompute * 1.1);
      } else {
        EXPECT_NEAR(slowJob, doubledCompute, doubledCompute * 0.02);
      }
    }
  }
}

}  // namespace
}  // namespace ddl
