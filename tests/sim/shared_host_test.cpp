// Ranks that compute on one machine's cores (an emulated cluster: topology "shared_host") share its
// throughput, each at most at its own speed alone, on both engines alike: alone or with a core each a rank
// computes as fast as on a GPU of its own; with more ranks than the machine delivers, every phase stretches
// by ranks / throughput; the overlap slowdown's contention takes its share of the same machine; and where
// carrying messages takes the machine's work, that work runs before compute and holds a message's sender
// until it is done.

#include <gtest/gtest.h>

#include <optional>
#include <ostream>

#include "algorithms/collectives/registry.hpp"
#include "sim/registered_engines.hpp"
#include "tests/sim/dedicated_link_platform.hpp"

namespace ddl {

// GoogleTest names each engine by its name, not by its address (found by argument-dependent lookup, so here
// in Engine's namespace).
void PrintTo(const Engine* engine, std::ostream* out) { *out << engine->name() << " engine"; }

namespace {

// A platform as DedicatedLinkPlatform describes it, whose ranks compute on one machine of `throughput`.
class OnOneMachine final : public PlatformDescription {
 public:
  OnOneMachine(CostModel model, std::optional<double> throughput, double networkWork = 0)
      : links_(std::move(model)), throughput_(throughput), networkWork_(networkWork) {}
  int hosts() const override { return links_.hosts(); }
  std::string hostName(Rank rank) const override { return links_.hostName(rank); }
  PlatformLink link(LinkId id) const override { return links_.link(id); }
  std::vector<RouteHop> route(Rank from, Rank to) const override { return links_.route(from, to); }
  double reduceSecondsPerByte(Rank rank) const override { return links_.reduceSecondsPerByte(rank); }
  std::optional<double> sharedComputeThroughput() const override { return throughput_; }
  double networkWorkSecondsPerByte(Rank, Rank) const override { return networkWork_; }

 private:
  DedicatedLinkPlatform links_;
  std::optional<double> throughput_;
  double networkWork_;
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
double iteration(const Engine& engine, int ranks, std::optional<double> throughput, const IterationEffects& effects = {}) {
  const IterationPlan plan(workload(), 1 << 20);
  const OnOneMachine platform(CostModel::uniform(ranks, {1e-9, 1e-15}, 1e-15), throughput);
  return engine.iteration(plan, bucketAllreduces(plan, findAlgorithm(CollectiveKind::Allreduce, "ring"), {}, ranks), platform, effects)
      .iterationSeconds;
}

// The same over links of 1 GB/s, whose carrying takes `work` seconds of a rank's compute per byte.
double iterationCarrying(const Engine& engine, int ranks, double throughput, double work) {
  const IterationPlan plan(workload(), 1 << 20);
  const OnOneMachine platform(CostModel::uniform(ranks, {1e-9, 1e-9}, 1e-15), throughput, work);
  return engine.iteration(plan, bucketAllreduces(plan, findAlgorithm(CollectiveKind::Allreduce, "ring"), {}, ranks), platform)
      .iterationSeconds;
}

class SharedHost : public testing::TestWithParam<const Engine*> {
 protected:
  const Engine& engine() const { return *GetParam(); }
};

TEST_P(SharedHost, ARankAloneOrWithACoreOfItsOwnComputesAtItsOwnSpeed) {
  const double compute = workload().computeSeconds();
  EXPECT_NEAR(iteration(engine(), 1, 1.5), compute, 1e-9);
  EXPECT_NEAR(iteration(engine(), 2, 2.0), iteration(engine(), 2, std::nullopt), 1e-9);
  EXPECT_NEAR(iteration(engine(), 2, std::nullopt), compute, 1e-4 * compute);
}

TEST_P(SharedHost, MoreRanksThanTheMachineDeliversStretchEveryPhaseByRanksOverThroughput) {
  const double compute = workload().computeSeconds();
  for (int ranks : {2, 4, 8})
    EXPECT_NEAR(iteration(engine(), ranks, 1.5), compute * ranks / 1.5, 1e-4 * compute) << ranks << " ranks";
}

TEST_P(SharedHost, TheOverlapContentionTakesItsShareOfTheSameMachine) {
  IterationEffects effects;
  effects.overlapSlowdown = 0.5;
  // With the contention on the machine every rank shares, compute is slower than with the machine alone,
  // and no faster than when each rank has a core to share with its own contention only.
  const double shared = iteration(engine(), 4, 1.5, effects);
  EXPECT_GT(shared, iteration(engine(), 4, 1.5));
  EXPECT_GT(shared, iteration(engine(), 4, std::nullopt, effects));
}

// A ring allreduce of 8 MB on 2 ranks over links of 1 GB/s: two steps, in each of which both ranks send 4 MB
// (4 ms on the wire).
double ringCarrying(const Engine& engine, double throughput, double work) {
  const OnOneMachine platform(CostModel::uniform(2, {1e-9, 1e-9}, 1e-15), throughput, work);
  const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "ring"), {CollectiveKind::Allreduce, 2, 2'000'000, 4}, {});
  return engine.collective(schedule, platform).seconds;
}

TEST_P(SharedHost, CarryingThatTheMachineHasRoomForCostsTheMessagesNothing) {
  // Each message's work runs at most at the wire's pace: 1e-9 s/B x 1 GB/s = one rank's speed, 2 at once.
  EXPECT_NEAR(ringCarrying(engine(), 2.0, 1e-9), ringCarrying(engine(), 2.0, 0), 1e-9);
  EXPECT_NEAR(ringCarrying(engine(), 2.0, 0), 8e-3, 1e-6);
}

TEST_P(SharedHost, CarryingThatTheMachineCannotKeepUpWithHoldsTheSendersToItsPace) {
  // 16 MB carried at 1e-9 s of work per byte on a machine of one rank's speed: 16 ms, not the wire's 8.
  EXPECT_NEAR(ringCarrying(engine(), 1.0, 1e-9), 16e-3, 1e-6);
}

TEST_P(SharedHost, CarryingRunsBeforeComputeAndSlowsIt) {
  // 4 ranks on a machine of 2: the backward pass beside the allreduces loses what carrying takes.
  const double free = iterationCarrying(engine(), 4, 2.0, 0);
  const double carrying = iterationCarrying(engine(), 4, 2.0, 0.4e-9);
  EXPECT_GT(carrying, free * 1.01);
  // Carrying as costly but with the machine to spare leaves the iteration as it was.
  EXPECT_NEAR(iterationCarrying(engine(), 4, 100.0, 0.4e-9), iterationCarrying(engine(), 4, 100.0, 0), 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Engines, SharedHost, testing::ValuesIn(registeredEngines()),
                         [](const testing::TestParamInfo<const Engine*>& info) { return std::string(info.param->name()); });

TEST(SharedHost, BothEnginesAgreeWithContention) {
  IterationEffects effects;
  effects.overlapSlowdown = 0.5;
  for (int ranks : {2, 4}) {
    const double message = iteration(engineNamed("message", "engine"), ranks, 1.5, effects);
    EXPECT_NEAR(iteration(engineNamed("step", "engine"), ranks, 1.5, effects), message, 1e-4 * message) << ranks << " ranks";
  }
}

TEST(SharedHost, BothEnginesAgreeWithCarrying) {
  for (int ranks : {2, 4}) {
    const double message = iterationCarrying(engineNamed("message", "engine"), ranks, 1.5, 0.4e-9);
    EXPECT_NEAR(iterationCarrying(engineNamed("step", "engine"), ranks, 1.5, 0.4e-9), message, 1e-4 * message) << ranks << " ranks";
  }
}

}  // namespace
}  // namespace ddl
