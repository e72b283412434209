// The step engine against the SimGrid engine at today's scale: every algorithm on every shipped topology at
// 64, 256 and 1024 ranks, the slowest rank within 1% (the bound). Under the `long` label, outside
// scripts/test: 3 s, 50 s and 16 min here, nearly all of it the SimGrid engine (ctest --test-dir build/release -L long).
//
// At these sizes the two need not agree to the last digit as at 8 and 16 ranks (step_engine_test.cpp): where
// messages end within rounding of each other, the order in which the engines take them can differ, and an
// asynchronous schedule (the double binary tree) then follows a slightly different path. Measured here, the
// largest differences: 7.4e-8 at 64 ranks, 1.1e-6 at 256, 7.6e-5 at 1024; and 0.28% for a double binary tree
// of 100 MB on 64 one-GPU nodes.

#include <gtest/gtest.h>

#include "sim/simgrid/collective_on_simgrid.hpp"
#include "sim/step/step_collective.hpp"
#include "tests/sim/engine_agreement.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

class AtScale : public ::testing::TestWithParam<int> {};

TEST_P(AtScale, TheStepEngineAgreesWithTheSimGridEngineWithinOnePercent) {
  const int ranks = GetParam();
  const std::int64_t bytes = 16 << 20;
  for (const std::string& name : testing::shippedTopologies()) {
    const Topology topology = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json");
    if (topology.nicsUsed == 0 && ranks > topology.node.gpus) continue;  // no NIC: one node only
    const Cluster cluster(topology, ranks, Placement::Packed);
    for (const testing::EngineCase& shape : testing::engineCases(ranks, topology.node.gpus, bytes)) {
      const Schedule schedule = makeSchedule(*shape.algorithm, {shape.algorithm->collective, ranks, bytes / 4, 4}, shape.options);
      const double message = simulateCollective(schedule, cluster).seconds;
      const double step = step::simulateCollective(schedule, cluster).seconds;
      EXPECT_NEAR(step, message, 0.01 * message) << shape.label() << " on " << ranks << " ranks of " << name;
      std::printf("%-48s %-22s %5d ranks: message %.9g s, step %.9g s (%+.2e)\n", shape.label().c_str(), name.c_str(), ranks,
                  message, step, (step - message) / message);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, AtScale, ::testing::Values(64, 256, 1024));

}  // namespace
}  // namespace ddl
