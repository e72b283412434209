// The step engine gives the SimGrid engine's answers: the same collective, run by the same rules over the
// same equations (sim/step_platform.hpp), takes the same time on every shipped topology, for
// every algorithm, including where messages contend for links and where ranks run back to back.
//
// Except one, not understood yet: the double binary tree, where contention makes the engines differ (by up
// to 4.5% at 8 and 16 ranks, 0.01-0.15% at 64 ranks and 100 MB). `--engine auto` gives it the message engine
// (sim/engine_choice.hpp); the test below holds the difference to what was measured, so that it is seen if it
// grows, and notices if it goes.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "sim/collective_simulation.hpp"
#include "sim/engine_choice.hpp"
#include "sim/simulation_error.hpp"
#include "sim/step_collective.hpp"
#include "tests/algorithms/schedule_test_support.hpp"
#include "tests/sim/dedicated_link_platform.hpp"
#include "tests/sim/engine_agreement.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

// Far tighter than the 1% the engines must agree within: they solve the same equations, and differ only by
// SimGrid's own precision (its sharing is solved to a relative 1e-5, its clock to 1e-9 s).
constexpr double kAgreement = 1e-4;

Topology shipped(const std::string& name) { return loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json"); }

// Where --engine auto gives the step engine: there the engines must agree to kAgreement.
bool autoTakesTheStepEngine(const testing::EngineCase& shape) {
  return chooseEngine(EngineChoice::Auto, shape.algorithm, shape.options) == SimulationEngine::Step;
}

// The largest relative difference over the cases `take` selects; every case agrees to kAgreement, or to
// `tolerance` where `take` is false.
double expectAgreement(const Topology& topology, int ranks, Placement placement, std::int64_t bytes, int runs,
                       double tolerance = kAgreement) {
  const Cluster cluster(topology, ranks, placement);
  double largest = 0;
  for (const testing::EngineCase& shape : testing::engineCases(ranks, topology.node.gpus, bytes)) {
    const CollectiveSpec spec{shape.algorithm->collective, ranks, bytes / 4, 4};
    const Schedule schedule = makeSchedule(*shape.algorithm, spec, shape.options);
    const double message = simulateCollective(schedule, cluster, runs).seconds;
    const double step = step::simulateCollective(schedule, cluster, runs).seconds;
    const double allowed = autoTakesTheStepEngine(shape) ? kAgreement : tolerance;
    EXPECT_NEAR(step, message, allowed * message)
        << shape.label() << " " << toString(spec.kind) << " on " << ranks << " ranks of " << topology.name << ", " << runs << " runs";
    if (!autoTakesTheStepEngine(shape)) largest = std::max(largest, std::abs(step - message) / message);
  }
  return largest;
}

TEST(StepEngine, AgreesWithTheSimGridEngineOnEveryShippedTopologyForEveryAlgorithm) {
  double doubleBinaryTree = 0;
  for (const std::string& name : testing::shippedTopologies()) {
    const Topology topology = shipped(name);
    for (int ranks : {8, 16}) {
      if (topology.nicsUsed == 0 && ranks > topology.node.gpus) continue;  // no NIC: one node only
      doubleBinaryTree = std::max(doubleBinaryTree, expectAgreement(topology, ranks, Placement::Packed, 4 << 20, 1, 0.06));
    }
  }
  // Measured up to 4.5% (bigbasin-p100-50gbe, 8 ranks, 256 KiB chunks); none would mean the cause was mended.
  EXPECT_GT(doubleBinaryTree, 1e-3) << "the double binary tree now agrees: let --engine auto give it the step engine";
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

}  // namespace
}  // namespace ddl
