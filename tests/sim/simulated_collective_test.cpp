// The SimGrid backend executes schedules by the same rules as the algorithm layer: on a platform where no
// two messages share a link, a simulated collective takes the algorithm's closed-form time.

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/simgrid/collective_on_simgrid.hpp"
#include "tests/algorithms/schedule_test_support.hpp"
#include "tests/sim/dedicated_link_platform.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

// Deliberately unround link costs, one per level, and a GPU-like reduction rate.
const std::vector<LinkCost> kLinks = {{1.7e-6, 1 / 37.0e9}, {4.1e-6, 1 / 11.3e9}, {6.3e-6, 1 / 6.1e9}};
constexpr double kGamma = 1 / 244.0e9;

struct Shape {
  std::string algorithm;
  AlgorithmOptions options;
};

std::vector<Shape> shapesFor(int ranks) {
  std::vector<Shape> shapes;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if (algorithm->collective == CollectiveKind::Allreduce && algorithm->options == kNoOptions)
      shapes.push_back({std::string(algorithm->name), {}});
  shapes.push_back({"double-binary-tree", {.chunkBytes = 256 * 1024}});
  const std::vector<int> grid = ranks == 8 ? std::vector<int>{2, 2, 2} : ranks == 64 ? std::vector<int>{4, 4, 4} : std::vector<int>{4, 16, 4};
  shapes.push_back({"ddl", {.dims = grid}});
  shapes.push_back({"hierarchical", {.ranksPerNode = 4, .inner = "halving-doubling"}});
  shapes.push_back({"torus-2d", {.dims = std::vector<int>{4, ranks / 4}, .inner = "ring"}});
  return shapes;
}

class SimulatedCollective : public ::testing::TestWithParam<int> {};

TEST_P(SimulatedCollective, TakesTheClosedFormTimeWhenNoLinkIsShared) {
  const int ranks = GetParam();
  // 2^19 elements: every block and chunk of every algorithm here is non-empty and the trees' chunks equal.
  const CollectiveSpec spec{CollectiveKind::Allreduce, ranks, 1 << 19, 4};
  for (const Shape& shape : shapesFor(ranks)) {
    const AlgorithmDefinition& algorithm = findAlgorithm(spec.kind, shape.algorithm);
    const CostModel model = costModelFor(algorithm, ranks, shape.options,
                                         std::vector<LinkCost>(kLinks.begin(), kLinks.begin() +
                                                               static_cast<std::ptrdiff_t>(algorithm.costLevels(ranks, shape.options).size())),
                                         kGamma);
    const double closed = algorithm.closedFormSeconds(spec, shape.options, model);
    const CollectiveTiming simulated = simulateCollective(makeSchedule(algorithm, spec, shape.options), DedicatedLinkPlatform(model));
    EXPECT_NEAR(simulated.seconds, closed, 1e-3 * closed) << algorithm.description(shape.options) << " at " << ranks << " ranks";
  }
}

#if defined(__SANITIZE_ADDRESS__)
// 256 ranks take the paths of 64 at four times the time (28 s under the sanitizers): the optimised build runs them.
INSTANTIATE_TEST_SUITE_P(RankCounts, SimulatedCollective, ::testing::Values(8, 64));
#else
INSTANTIATE_TEST_SUITE_P(RankCounts, SimulatedCollective, ::testing::Values(8, 64, 256));
#endif

TEST(SimulatedCollective, ReportsADeadlockInsteadOfHanging) {
  try {
    simulateCollective(testing::mutuallyWaitingSchedule(), DedicatedLinkPlatform(CostModel::uniform(2, kLinks[0], kGamma)));
    FAIL() << "a deadlocked simulation returned";
  } catch (const SimulationError& error) {
    EXPECT_NE(std::string(error.what()).find("ranks 0, 1"), std::string::npos) << error.what();
  }
  // And the next simulation in the same process runs normally.
  const CollectiveTiming after = simulateCollective(makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "ring"), {CollectiveKind::Allreduce, 2, 4, 4}, {}),
                                                    DedicatedLinkPlatform(CostModel::uniform(2, kLinks[0], kGamma)));
  EXPECT_GT(after.seconds, 0);
}

// ddlrun bench and nccl-tests time runs back to back; so does simulateCollective with runs > 1, reporting
// the slowest rank's average.
TEST(SimulatedCollective, BackToBackRunsOfASymmetricAllreduceEachTakeOneRunsTime) {
  const CollectiveSpec spec{CollectiveKind::Allreduce, 8, 1 << 16, 4};
  const DedicatedLinkPlatform platform(CostModel::uniform(8, kLinks[1], kGamma));
  // Halving-doubling's steps differ in size: a receive matched with another run's send would show.
  for (const char* name : {"ring", "halving-doubling"}) {
    const Schedule schedule = makeSchedule(findAlgorithm(spec.kind, name), spec, {});
    const double once = simulateCollective(schedule, platform).seconds;
    EXPECT_NEAR(simulateCollective(schedule, platform, 4).seconds, once, 1e-9 * once) << name;
  }
}

TEST(SimulatedCollective, BackToBackRunsInterleaveWhereRanksFinishAtDifferentTimes) {
  // The trees' leaves finish before their roots and start the next run while the roots still broadcast the
  // last one. Where the two trees' messages share a node's NIC, a run back to back then does not take its
  // time alone (on dedicated links it does).
  const CollectiveSpec spec{CollectiveKind::Allreduce, 8, 1 << 18, 4};
  const Schedule trees = makeSchedule(findAlgorithm(spec.kind, "double-binary-tree"), spec, {.chunkBytes = 128 * 1024});
  const Cluster platform(loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/flat-h200-edr.json"), 8, Placement::Packed);
  const double once = simulateCollective(trees, platform).seconds;
  const double backToBack = simulateCollective(trees, platform, 5).seconds;
  EXPECT_GT(std::abs(backToBack - once), 0.01 * once);
  EXPECT_GT(backToBack, 0.5 * once);
  EXPECT_LT(backToBack, 1.5 * once);
  EXPECT_THROW(simulateCollective(trees, platform, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ddl
