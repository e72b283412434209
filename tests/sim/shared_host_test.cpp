// Ranks that compute on one machine's cores (an emulated cluster: topology "shared_host") share its
// throughput, each at most at its own speed alone, on both engines alike: alone or with a core each a rank
// computes as fast as on a GPU of its own; with more ranks than the machine delivers, every phase stretches
// by ranks / throughput; and the overlap slowdown's contention takes its share of the same machine.

#include <gtest/gtest.h>

#include <optional>

#include "algorithms/collectives/registry.hpp"
#include "sim/simulate_on.hpp"
#include "tests/sim/dedicated_link_platform.hpp"

namespace ddl {
namespace {

// A platform as DedicatedLinkPlatform describes it, whose ranks compute on one machine of `throughput`.
class OnOneMachine final : public PlatformDescription {
 public:
  OnOneMachine(CostModel model, std::optional<double> throughput) : links_(std::move(model)), throughput_(throughput) {}
  int hosts() const override { return links_.hosts(); }
  std::string hostName(Rank rank) const override { return links_.hostName(rank); }
  PlatformLink link(LinkId id) const override { return links_.link(id); }
  std::vector<RouteHop> route(Rank from, Rank to) const override { return links_.route(from, to); }
  double reduceSecondsPerByte(Rank rank) const override { return links_.reduceSecondsPerByte(rank); }
  std::optional<double> sharedComputeThroughput() const override { return throughput_; }

 private:
  DedicatedLinkPlatform links_;
  std::optional<double> throughput_;
};

TrainingWorkload workload() {
  TrainingWorkload workload;
  workload.model = "test";
  workload.forwardSeconds = 0.030;
  workload.optimizerSeconds = 0.005;
  for (int i = 0; i < 6; ++i) workload.gradients.push_back({"t" + std::to_string(i), 250'000, 0.010});
  return workload;
}

// An iteration of `ranks` ranks whose network costs next to nothing, on `engine`.
double iteration(SimulationEngine engine, int ranks, std::optional<double> throughput, const IterationEffects& effects = {}) {
  const IterationPlan plan(workload(), 1 << 20);
  const OnOneMachine platform(CostModel::uniform(ranks, {1e-9, 1e-15}, 1e-15), throughput);
  return simulateIterationOn(engine, plan, findAlgorithm(CollectiveKind::Allreduce, "ring"), {}, platform, effects).iterationSeconds;
}

class SharedHost : public testing::TestWithParam<SimulationEngine> {};

TEST_P(SharedHost, ARankAloneOrWithACoreOfItsOwnComputesAtItsOwnSpeed) {
  const double compute = workload().computeSeconds();
  EXPECT_NEAR(iteration(GetParam(), 1, 1.5), compute, 1e-9);
  EXPECT_NEAR(iteration(GetParam(), 2, 2.0), iteration(GetParam(), 2, std::nullopt), 1e-9);
  EXPECT_NEAR(iteration(GetParam(), 2, std::nullopt), compute, 1e-4 * compute);
}

TEST_P(SharedHost, MoreRanksThanTheMachineDeliversStretchEveryPhaseByRanksOverThroughput) {
  const double compute = workload().computeSeconds();
  for (int ranks : {2, 4, 8})
    EXPECT_NEAR(iteration(GetParam(), ranks, 1.5), compute * ranks / 1.5, 1e-4 * compute) << ranks << " ranks";
}

TEST_P(SharedHost, TheOverlapContentionTakesItsShareOfTheSameMachine) {
  IterationEffects effects;
  effects.overlapSlowdown = 0.5;
  // With the contention on the machine every rank shares, compute is slower than with the machine alone,
  // and no faster than when each rank has a core to share with its own contention only.
  const double shared = iteration(GetParam(), 4, 1.5, effects);
  EXPECT_GT(shared, iteration(GetParam(), 4, 1.5));
  EXPECT_GT(shared, iteration(GetParam(), 4, std::nullopt, effects));
}

INSTANTIATE_TEST_SUITE_P(Engines, SharedHost, testing::Values(SimulationEngine::Message, SimulationEngine::Step),
                         [](const testing::TestParamInfo<SimulationEngine>& info) {
                           return info.param == SimulationEngine::Step ? std::string("Step") : std::string("Message");
                         });

TEST(SharedHost, BothEnginesAgreeWithContention) {
  IterationEffects effects;
  effects.overlapSlowdown = 0.5;
  for (int ranks : {2, 4}) {
    const double message = iteration(SimulationEngine::Message, ranks, 1.5, effects);
    EXPECT_NEAR(iteration(SimulationEngine::Step, ranks, 1.5, effects), message, 1e-4 * message) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace ddl
