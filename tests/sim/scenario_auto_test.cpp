// A scenario's {"name": "auto", "tuning": FILE}: each bucket allreduced by its tuning table's choice (under
// a sharded plan, each unit's reduce-scatter and all-gather by its kind's table), the point simulated with
// those choices and saying what they were, and the shipped tables still what the simulator says.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "algorithms/tuning/tuning_candidates.hpp"
#include "common/invalid_argument.hpp"
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

// A table of `kind` at `gpus` GPUs of `scenario`'s topology as ddlsim tune --collective writes it: every
// candidate simulated alone at each size from 1 MiB to 64 MiB.
void writeTable(const Scenario& scenario, CollectiveKind kind, int gpus, const std::filesystem::path& path) {
  TuningTable table;
  table.run = describeRun("ddlsim", "simulated");
  table.topology = scenario.topology.name;
  table.gpus = gpus;
  table.collective = kind;
  const Cluster cluster(scenario.topology, gpus, scenario.placement);
  for (std::int64_t bytes = 1 << 20; bytes <= 64 << 20; bytes *= 4) table.sizes.push_back(bytes);
  for (const AlgorithmChoice& candidate : tuningCandidates(kind, gpus, clusterShapeOf(scenario.topology, gpus))) {
    TunedCandidate tuned{candidate, {}};
    for (const std::int64_t bytes : table.sizes)
      tuned.seconds.push_back(engineNamed("step", "engine")
                                  .collective(makeSchedule(*candidate.algorithm, {kind, gpus, bytes / 4, 4}, candidate.options), cluster)
                                  .seconds);
    table.candidates.push_back(tuned);
  }
  std::ofstream(path) << tuningTableToJson(table).dump(1);
}

// Under zero1, "auto" reads a table per collective kind, {collective} in its name: each unit's reduce-scatter
// and all-gather is its kind's table's choice (ring, or NCCL's rings over the node's NICs), and the iteration
// runs what it chose; a table name without {collective} and a missing kind's table are refused naming the
// field, and "nccl" is taken.
TEST(ScenarioAuto, UnderAShardedPlanEachKindsTableChoosesEachUnitsCollective) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / ("ddlscale-sharded-auto-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const std::string path = std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50-tuned.json";
  nlohmann::json json = nlohmann::json::parse(std::ifstream(path));
  json.erase("effects");
  json["parallelism"] = "zero1";
  json["gpus"] = {1, 8};
  json["algorithms"] = {{{"name", "auto"}, {"tuning", (folder / "t-{collective}-{gpus}.json").string()}}, {{"name", "ring"}}};
  nlohmann::json oneGpu = json;
  oneGpu["gpus"] = {1};  // one GPU needs no table: the scenario's topology, to write the tables for
  const Scenario tables = scenarioFromJson(oneGpu, path);
  for (CollectiveKind kind : {CollectiveKind::ReduceScatter, CollectiveKind::AllGather})
    writeTable(tables, kind, 8, folder / ("t-" + std::string(toString(kind)) + "-8.json"));

  const Scenario scenario = scenarioFromJson(json, path);
  const IterationPlan plan = scenario.iterationPlan();
  const std::vector<BucketAlgorithms> perKind = scenario.shardedBucketAlgorithms(scenario.algorithms[0], 8, plan);
  ASSERT_EQ(perKind.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    const CollectiveKind kind = k == 0 ? CollectiveKind::ReduceScatter : CollectiveKind::AllGather;
    const TuningTable table = scenario.tuningTableFor(scenario.algorithms[0], 8, kind);
    EXPECT_EQ(table.collective, kind);
    ASSERT_EQ(perKind[k].size(), plan.buckets().size());
    for (std::size_t b = 0; b < perKind[k].size(); ++b) {
      const double padded = static_cast<double>((plan.buckets()[b].elements.count + 7) / 8 * 8) * plan.workload().elementBytes;
      EXPECT_EQ(perKind[k][b].label(), table.choose(padded).label()) << toString(kind) << ", unit " << b;
      EXPECT_EQ(perKind[k][b].algorithm->collective, kind);
    }
  }
  const ScalingResults results = simulateScenario(scenario, engineNamed("step", "engine"));
  const ScalingPoint* automatic = nullptr;
  for (const ScalingPoint& point : results.points)
    if (point.gpus == 8 && point.algorithmName == "auto") automatic = &point;
  ASSERT_TRUE(automatic);
  ASSERT_EQ(automatic->collectives.size(), 2 * plan.buckets().size());
  // The iteration ran each unit's choice: the collectives of each kind, unit by unit, name its choices.
  for (std::size_t k = 0; k < 2; ++k) {
    std::vector<std::string> expected;
    std::vector<std::string> ran;
    for (const AlgorithmChoice& choice : perKind[k]) expected.push_back(choice.label());
    for (const CollectiveMeasurement& collective : automatic->collectives)
      if (collective.collective == toString(k == 0 ? CollectiveKind::ReduceScatter : CollectiveKind::AllGather))
        ran.push_back(collective.chosen);
    EXPECT_EQ(ran, expected);
  }

  const auto refusal = [&](const nlohmann::json& edited) {
    try {
      scenarioFromJson(edited, path);
    } catch (const InvalidArgument& error) {
      return error.field().substr(error.field().find(": ") + 2) + ": " + error.message();
    }
    return std::string("(no error)");
  };
  nlohmann::json edited = json;
  edited["algorithms"][0]["tuning"] = (folder / "t-reduce-scatter-{gpus}.json").string();
  EXPECT_EQ(refusal(edited).rfind("$.algorithms[0].tuning: '", 0), 0) << refusal(edited);
  EXPECT_NE(refusal(edited).find("put {collective} in it"), std::string::npos) << refusal(edited);
  std::filesystem::remove(folder / "t-all-gather-8.json");
  EXPECT_EQ(refusal(json).rfind("$.algorithms[0].tuning: no all-gather tuning table for 8 GPUs", 0), 0) << refusal(json);
  edited = json;
  edited["algorithms"] = {{{"name", "nccl"}}};
  EXPECT_EQ(refusal(edited), "(no error)") << "nccl chooses NCCL's rings for zero1's reduce-scatters and all-gathers";
  std::filesystem::remove_all(folder);
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
