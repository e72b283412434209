// The shipped scenarios of what IBM and Facebook published (docs/reference/README.md): DDL at 95% on 256
// GPUs, Goyal et al.'s recursive halving-doubling at about 90%. The published figures are validation
// points, scored with the rest of what the project has measured; no test here holds a prediction, or an
// interval, to them: that would make the model a fit.
//
// What is held: the orderings the physics gives (overlapping backward gains, DDL's multi-ring beats a flat
// ring on Minsky, efficiency never rises with GPUs), the ideal numbers (every effect off) of 2026-11-30
// (scenarios/README.md) within 0.1 point, so that a change to them is seen and explained, and that the
// sourced effects lower the prediction and their priors spread its samples (ddlsim --samples).

#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "sim/registered_engines.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {
namespace {

Scenario shippedWithEffects(const std::string& name) {
  return loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/" + name + ".json");
}

// The scenario with every effect off: the ideal iteration.
Scenario shipped(const std::string& name) {
  Scenario scenario = shippedWithEffects(name);
  scenario.effects = {};
  scenario.sourcedEffects.clear();
  return scenario;
}

using Key = std::pair<std::string, int>;  // algorithm name (first word of the label), GPU count

std::map<Key, ScalingPoint> points(const Scenario& scenario, int samples = 0) {
  std::map<Key, ScalingPoint> byPoint;
  for (const ScalingPoint& point : simulateScenario(scenario, automaticEngine(), {1, samples}).points)
    byPoint[{point.label.substr(0, point.label.find(' ')), point.gpus}] = point;
  return byPoint;
}

std::map<Key, double> efficiencies(const Scenario& scenario) {
  std::map<Key, double> byPoint;
  for (const auto& [key, point] : points(scenario)) byPoint[key] = point.efficiency();
  return byPoint;
}

void expectFullAtTheBaselineAndNonIncreasing(const Scenario& scenario) {
  const ScalingResults results = simulateScenario(scenario, automaticEngine());
  std::map<std::string, double> previous;
  for (const ScalingPoint& point : results.points) {
    EXPECT_EQ(point.baselineGpus, scenario.baselineGpus);
    EXPECT_TRUE(point.gpus != scenario.baselineGpus || std::abs(point.efficiency() - 1) < 1e-12)
        << scenario.name << " " << point.label;
    auto [it, first] = previous.try_emplace(point.label.substr(0, point.label.find(' ')), point.efficiency());
    EXPECT_LE(point.efficiency(), it->second + 1e-12) << scenario.name << " " << point.label << " at " << point.gpus;
    it->second = point.efficiency();
  }
}

TEST(PublishedResults, EfficiencyIsFullAtTheBaselineAndNeverRisesWithMoreGpus) {
  for (const char* name : {"powerai-ddl-resnet50", "goyal-bigbasin-resnet50", "powerai-ddl-resnet101-22k"})
    expectFullAtTheBaselineAndNonIncreasing(shipped(name));
  // With the sourced effects too, where stragglers add to the loss as GPUs are added.
  Scenario ddl = shippedWithEffects("powerai-ddl-resnet50");
  ddl.algorithms.resize(1);
  expectFullAtTheBaselineAndNonIncreasing(ddl);
}

TEST(PublishedResults, WithEveryEffectOffTheShippedScenariosPredictThe2026_11_30Numbers) {
  const std::map<std::string, std::map<Key, double>> table = {
      {"powerai-ddl-resnet50", {{{"ddl", 256}, 0.986}, {{"ring", 256}, 0.954}, {{"halving-doubling", 256}, 0.985},
                                {{"hierarchical", 256}, 0.965}}},
      {"goyal-bigbasin-resnet50", {{{"hierarchical", 256}, 0.965}, {{"halving-doubling", 256}, 0.965}, {{"ring", 256}, 0.917}}},
      {"powerai-ddl-resnet101-22k", {{{"ddl", 256}, 0.997}}},
  };
  for (const auto& [name, expected] : table) {
    Scenario scenario = shipped(name);
    scenario.gpuCounts = {256};
    const auto predicted = efficiencies(scenario);
    for (const auto& [key, efficiency] : expected)
      EXPECT_NEAR(predicted.at(key), efficiency, 0.001 + 0.0005) << name << " " << key.first;  // 0.1 point, and the table's rounding
  }
}

TEST(PublishedResults, SourcedEffectsLowerThePredictionAndItsSamplesSpreadBelowTheIdeal) {
  // Each publication's own algorithm at 256 GPUs, against the baseline the publication used.
  const std::vector<std::pair<const char*, const char*>> systems = {
      {"powerai-ddl-resnet50", "ddl"}, {"goyal-bigbasin-resnet50", "hierarchical"}, {"powerai-ddl-resnet101-22k", "ddl"}};
  for (const auto& [name, algorithm] : systems) {
    Scenario scenario = shippedWithEffects(name);
    ASSERT_FALSE(scenario.sourcedEffects.empty()) << name;
    scenario.gpuCounts = {256};
    std::erase_if(scenario.algorithms, [&](const ScenarioAlgorithm& entry) { return entry.name != algorithm; });
    Scenario ideal = shipped(name);
    ideal.gpuCounts = scenario.gpuCounts;
    ideal.algorithms = scenario.algorithms;
    const ScalingPoint point = points(scenario, 16).at({algorithm, 256});
    ASSERT_TRUE(point.interval) << name;
    const Percentiles& efficiency = point.interval->efficiency;
    const double idealEfficiency = efficiencies(ideal).at({algorithm, 256});
    EXPECT_LT(point.efficiency(), idealEfficiency) << name;
    // Every sourced effect but the per-iteration overhead only lowers the efficiency, and that one is
    // milliseconds against an iteration of 0.17 to 0.35 s: no sample reaches the ideal.
    EXPECT_LT(efficiency.p95, idealEfficiency) << name;
    EXPECT_LT(efficiency.p05, efficiency.p95 - 0.005) << name << ": the priors spread the samples";
  }
}

TEST(PublishedResults, PowerAiDdlOverlapsBackwardToItsGainAndBeatsTheFlatRing) {
  Scenario scenario = shipped("powerai-ddl-resnet50");
  scenario.gpuCounts = {256};
  const auto overlapped = efficiencies(scenario);
  scenario.overlapBackward = false;
  const auto afterBackward = efficiencies(scenario);
  EXPECT_GT(overlapped.at({"ddl", 256}), afterBackward.at({"ddl", 256}));
  EXPECT_GT(overlapped.at({"ddl", 256}), overlapped.at({"ring", 256}) + 0.02);
  EXPECT_GT(afterBackward.at({"ddl", 256}), afterBackward.at({"ring", 256}) + 0.02);
}

TEST(PublishedResults, GoyalOverlapsBackwardToItsGainAndIsBehindDdlOnMinsky) {
  Scenario goyal = shipped("goyal-bigbasin-resnet50");
  goyal.gpuCounts = {256};
  const auto overlapped = efficiencies(goyal);
  goyal.overlapBackward = false;
  const auto afterBackward = efficiencies(goyal);
  for (const char* algorithm : {"halving-doubling", "hierarchical"})
    EXPECT_GT(overlapped.at({algorithm, 256}), afterBackward.at({algorithm, 256})) << algorithm;
  Scenario ddl = shipped("powerai-ddl-resnet50");
  ddl.gpuCounts = {256};
  EXPECT_GT(efficiencies(ddl).at({"ddl", 256}), overlapped.at({"hierarchical", 256}));
}

}  // namespace
}  // namespace ddl
