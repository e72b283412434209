// The shipped scenarios against what IBM and Facebook published (docs/reference/README.md): DDL at 95%
// on 256 GPUs, Goyal et al.'s recursive halving-doubling at about 90%.
//
// The ideal model (every effect off) overlaps each bucket's allreduce with the rest of backward, as
// DESIGN.md defines the iteration, and leaves out stragglers, interference and overheads, so it is
// optimistic; allreducing only after backward is the opposite bound. The published figures must lie
// between the two, the orderings must hold, and the ideal numbers are those of 2026-11-30
// (scenarios/README.md) within 0.1 point.
//
// The shipped scenarios turn on every effect at its sourced value: their central estimates fall below the
// ideal ones, and the range their sources span (ddlsim --range) holds the central estimate and, for DDL and
// Goyal et al., the published figure.

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

std::map<Key, ScalingPoint> points(const Scenario& scenario, bool range = false) {
  std::map<Key, ScalingPoint> byPoint;
  for (const ScalingPoint& point : simulateScenario(scenario, automaticEngine(), {1, range}).points)
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

TEST(PublishedResults, SourcedEffectsLowerThePredictionAndTheirRangeHoldsItAndThePublishedFigure) {
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
    const ScalingPoint point = points(scenario, true).at({algorithm, 256});
    ASSERT_TRUE(point.efficiencyRange) << name;
    const auto [low, high] = *point.efficiencyRange;
    EXPECT_LT(point.efficiency(), efficiencies(ideal).at({algorithm, 256})) << name;
    EXPECT_LE(low, point.efficiency()) << name;
    EXPECT_GE(high, point.efficiency()) << name;
    EXPECT_LT(low, point.efficiency() - 0.01) << name << ": the range spans something";
    // IBM's 95% for DDL and Goyal et al.'s 90% lie inside; the 86% derived for ResNet-101-22K does not
    // (scenarios/README.md), and is left out here.
    if (std::string(name) == "powerai-ddl-resnet101-22k") continue;
    const double published = scenario.published.front().efficiency;
    EXPECT_LE(low, published) << name;
    EXPECT_GE(high, published) << name;
  }
}

TEST(PublishedResults, PowerAiDdlAt256GpusIsBracketedAndBeatsTheFlatRing) {
  Scenario scenario = shipped("powerai-ddl-resnet50");
  scenario.gpuCounts = {256};
  const auto overlapped = efficiencies(scenario);
  scenario.overlapBackward = false;
  const auto afterBackward = efficiencies(scenario);
  EXPECT_LE(afterBackward.at({"ddl", 256}), 0.95);
  EXPECT_GE(overlapped.at({"ddl", 256}), 0.95);
  EXPECT_GT(overlapped.at({"ddl", 256}), overlapped.at({"ring", 256}) + 0.02);
  EXPECT_GT(afterBackward.at({"ddl", 256}), afterBackward.at({"ring", 256}) + 0.02);
}

TEST(PublishedResults, GoyalAt256GpusIsBracketedAndBehindDdlOnMinsky) {
  Scenario goyal = shipped("goyal-bigbasin-resnet50");
  goyal.gpuCounts = {256};
  const auto overlapped = efficiencies(goyal);
  goyal.overlapBackward = false;
  const auto afterBackward = efficiencies(goyal);
  for (const char* algorithm : {"halving-doubling", "hierarchical"}) {
    EXPECT_LE(afterBackward.at({algorithm, 256}), 0.90) << algorithm;
    EXPECT_GE(overlapped.at({algorithm, 256}), 0.90) << algorithm;
  }
  Scenario ddl = shipped("powerai-ddl-resnet50");
  ddl.gpuCounts = {256};
  EXPECT_GT(efficiencies(ddl).at({"ddl", 256}), overlapped.at({"hierarchical", 256}));
}

}  // namespace
}  // namespace ddl
