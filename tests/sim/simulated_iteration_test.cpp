// A simulated training iteration follows the iteration plan: on a platform without contention it takes
// the time the plan's analytic timing gives for the algorithm's closed-form allreduce times. That timing
// starts each allreduce when the previous one has ended on every rank; a simulated rank starts it when
// it has itself finished the previous one, so it may shave a little off, never add.

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "sim/simgrid/iteration_on_simgrid.hpp"
#include "tests/sim/dedicated_link_platform.hpp"

namespace ddl {
namespace {

TrainingWorkload smallWorkload() {
  TrainingWorkload workload;
  workload.model = "test";
  workload.forwardSeconds = 0.010;
  workload.optimizerSeconds = 0.001;
  // Backprop order: a large last layer first, as a classifier head is.
  for (int i = 0; i < 12; ++i)
    workload.gradients.push_back({"t" + std::to_string(i), i == 0 ? 2'000'000 : 300'000 + 1000 * i, 0.0015 + 0.0001 * i});
  return workload;
}

double analyticIteration(const IterationPlan& plan, const AlgorithmDefinition& algorithm, const AlgorithmOptions& options,
                         const CostModel& model) {
  std::vector<double> allreduce;
  for (const GradientBucket& bucket : plan.buckets())
    allreduce.push_back(algorithm.closedFormSeconds(
        {CollectiveKind::Allreduce, model.ranks(), bucket.elements.count, plan.workload().elementBytes}, options, model));
  return timeIteration(plan, allreduce).iterationSeconds;
}

TEST(SimulatedIteration, TakesTheAnalyticTimeWhenNoLinkIsShared) {
  const CostModel model = CostModel::uniform(16, {3.1e-6, 1 / 12.5e9}, 1 / 244e9);
  const AlgorithmDefinition& ring = findAlgorithm(CollectiveKind::Allreduce, "ring");
  for (bool overlap : {true, false})
    for (std::int64_t bucketBytes : {1LL, 4LL << 20, 1LL << 40}) {
      const IterationPlan plan(smallWorkload(), bucketBytes, overlap);
      const double simulated = simulateIteration(plan, ring, {}, DedicatedLinkPlatform(model)).iterationSeconds;
      const double analytic = analyticIteration(plan, ring, {}, model);
      EXPECT_LE(simulated, analytic * (1 + 1e-12)) << plan.buckets().size() << " buckets, overlap " << overlap;
      EXPECT_NEAR(simulated, analytic, 1e-4 * analytic) << plan.buckets().size() << " buckets, overlap " << overlap;
    }
}

TEST(SimulatedIteration, OnOneGpuTakesTheComputeTime) {
  const IterationPlan plan(smallWorkload(), 1 << 20);
  const IterationSimulation simulated = simulateIteration(plan, findAlgorithm(CollectiveKind::Allreduce, "ring"), {},
                                                          DedicatedLinkPlatform(CostModel::uniform(1, {1e-6, 1e-10}, 1e-12)));
  EXPECT_NEAR(simulated.iterationSeconds, plan.workload().computeSeconds(), 1e-12);
}

TEST(SimulatedIteration, ReportsEachBucketsAllreduce) {
  const CostModel model = CostModel::uniform(8, {3.1e-6, 1 / 12.5e9}, 1 / 244e9);
  const IterationPlan plan(smallWorkload(), 4 << 20);
  const IterationSimulation simulated =
      simulateIteration(plan, findAlgorithm(CollectiveKind::Allreduce, "halving-doubling"), {}, DedicatedLinkPlatform(model));
  ASSERT_EQ(simulated.allreduces.size(), plan.buckets().size());
  for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
    const CollectiveMeasurement& measured = simulated.allreduces[b];
    EXPECT_DOUBLE_EQ(measured.bytes, 4.0 * static_cast<double>(plan.buckets()[b].elements.count));
    const double closed = findAlgorithm(CollectiveKind::Allreduce, "halving-doubling")
                              .closedFormSeconds({CollectiveKind::Allreduce, 8, plan.buckets()[b].elements.count, 4}, {}, model);
    EXPECT_NEAR(measured.seconds, closed, 1e-6 * closed);
    EXPECT_DOUBLE_EQ(measured.busbwBps, measured.algbwBps * 2 * 7 / 8);
  }
}

}  // namespace
}  // namespace ddl
