// A scenario's {"name": "auto", "tuning": FILE}: each bucket allreduced by its tuning table's choice, the
// point simulated with those choices and saying what they were, and the shipped tables still what the
// simulator says.

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/tuning/tuning_candidates.hpp"
#include "scenarios/scenario.hpp"
#include "sim/registered_engines.hpp"
#include "sim/sweep/scenario_sweep.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

Scenario tunedScenario() { return loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50-tuned.json"); }

const ScenarioAlgorithm& autoEntry(const Scenario& scenario) {
  for (const ScenarioAlgorithm& entry : scenario.algorithms)
    if (entry.tuned()) return entry;
  throw std::logic_error("the tuned scenario has no auto entry");
}

TEST(ScenarioAuto, ChoosesEachBucketsAllreduceFromTheTableOfItsGpuCount) {
  const Scenario scenario = tunedScenario();
  const ScenarioAlgorithm& automatic = autoEntry(scenario);
  const IterationPlan plan = scenario.iterationPlan();
  ASSERT_GT(plan.buckets().size(), 1u);
  for (int gpus : {4, 32, 256}) {
    const TuningTable table = scenario.tuningTableFor(automatic, gpus);
    EXPECT_EQ(table.gpus, gpus);
    const BucketAlgorithms chosen = scenario.bucketAlgorithms(automatic, gpus, plan);
    ASSERT_EQ(chosen.size(), plan.buckets().size());
    for (std::size_t b = 0; b < chosen.size(); ++b)
      EXPECT_EQ(chosen[b].label(),
                table.choose(static_cast<double>(plan.buckets()[b].elements.count) * plan.workload().elementBytes).label())
          << gpus << " GPUs, bucket " << b;
  }
  EXPECT_EQ(scenario.labelFor(automatic, 256), "auto");
  const AlgorithmOptions none = scenario.optionsFor(automatic, 256);
  EXPECT_FALSE(none.dims || none.ranksPerNode || none.inner || none.chunkBytes) << "auto's table gives the options";
  // One GPU sends nothing: no table is read for it (none is shipped).
  EXPECT_EQ(scenario.bucketAlgorithms(automatic, 1, plan).size(), plan.buckets().size());
}

// The point's iteration is the one its choices give, and its results say what ran each bucket.
TEST(ScenarioAuto, SimulatesThePointWithTheChoicesAndRecordsThem) {
  Scenario scenario = tunedScenario();
  scenario.gpuCounts = {16};
  scenario.effects = {};
  scenario.sourcedEffects.clear();
  const ScenarioAlgorithm automatic = autoEntry(scenario);
  scenario.algorithms = {automatic};
  const ScalingResults results = simulateScenario(scenario, engineNamed("step", "engine"));
  ASSERT_EQ(results.points.size(), 1u);
  const ScalingPoint& point = results.points.front();
  EXPECT_EQ(point.algorithmName, "auto");
  EXPECT_EQ(point.label, "auto");

  const IterationPlan plan = scenario.iterationPlan();
  const BucketAlgorithms chosen = scenario.bucketAlgorithms(automatic, 16, plan);
  const IterationSimulation expected =
      engineNamed("step", "engine").iteration(plan, bucketAllreduces(plan, chosen, 16), Cluster(scenario.topology, 16, scenario.placement));
  EXPECT_DOUBLE_EQ(point.iterationSeconds, expected.iterationSeconds);
  ASSERT_EQ(point.collectives.size(), chosen.size());
  for (std::size_t b = 0; b < chosen.size(); ++b) {
    EXPECT_EQ(point.collectives[b].chosen, chosen[b].label()) << "bucket " << b;
    EXPECT_DOUBLE_EQ(point.collectives[b].seconds, expected.allreduces[b].seconds) << "bucket " << b;
  }
}

// A table the simulator would now write differently is stale: make it again (scenarios/tuning/README.md).
// The small counts run here in seconds; every candidate's time at every size must still be the simulator's.
TEST(ScenarioAuto, TheShippedTablesAreWhatTheSimulatorSaysToday) {
  const Scenario scenario = tunedScenario();
  const ScenarioAlgorithm& automatic = autoEntry(scenario);
  for (int gpus : {2, 4, 8}) {
    const TuningTable table = scenario.tuningTableFor(automatic, gpus);
    const Cluster cluster(scenario.topology, gpus, scenario.placement);
    const ClusterShape shape = clusterShapeOf(scenario.topology, gpus);
    std::set<std::string> candidates;
    for (const AlgorithmChoice& candidate : tuningCandidates(CollectiveKind::Allreduce, gpus, shape)) candidates.insert(candidate.label());
    std::set<std::string> tabled;
    for (const TunedCandidate& candidate : table.candidates) {
      tabled.insert(candidate.choice.label());
      for (std::size_t size = 0; size < table.sizes.size(); ++size) {
        const Schedule schedule = makeSchedule(
            *candidate.choice.algorithm,
            {CollectiveKind::Allreduce, gpus, table.sizes[size] / table.elementBytes, table.elementBytes}, candidate.choice.options);
        EXPECT_NEAR(candidate.seconds[size], engineNamed("step", "engine").collective(schedule, cluster).seconds,
                    1e-9 * candidate.seconds[size])
            << gpus << " GPUs, " << candidate.choice.label() << " at " << table.sizes[size] << " bytes";
      }
    }
    EXPECT_EQ(tabled, candidates) << gpus << " GPUs: the table ranks other configurations than the tuner would";
  }
}

}  // namespace
}  // namespace ddl
