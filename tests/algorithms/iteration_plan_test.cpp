// The training iteration's plan: gradient buckets by a byte threshold, when each may be reduced, and the
// compute phases every backend runs between those moments.

#include <gtest/gtest.h>

#include <numeric>

#include "algorithms/training/iteration_plan.hpp"

namespace ddl {
namespace {

// Four tensors in backprop order, 1 MB of fp32 gradients each, 2, 3, 4 and 5 ms of backward.
TrainingWorkload fourTensors() {
  TrainingWorkload workload;
  workload.forwardSeconds = 0.010;
  workload.optimizerSeconds = 0.001;
  for (int i = 0; i < 4; ++i) workload.gradients.push_back({"t" + std::to_string(i), 250'000, 0.002 + 0.001 * i});
  return workload;
}

TEST(IterationPlan, ClosesABucketOnceItHoldsTheThreshold) {
  const IterationPlan plan(fourTensors(), 2'000'000);  // two tensors' worth
  ASSERT_EQ(plan.buckets().size(), 2u);
  EXPECT_EQ(plan.buckets()[0].lastTensor, 1);
  EXPECT_EQ(plan.buckets()[0].elements, (Range{0, 500'000}));
  EXPECT_EQ(plan.buckets()[1].lastTensor, 3);
  EXPECT_EQ(plan.buckets()[1].elements, (Range{500'000, 500'000}));
}

TEST(IterationPlan, ABucketIsReadyWhenItsLastGradientIsComputed) {
  const IterationPlan plan(fourTensors(), 2'000'000);
  const std::vector<double> ready = plan.bucketReadySeconds();
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_DOUBLE_EQ(ready[0], 0.010 + 0.002 + 0.003);
  EXPECT_DOUBLE_EQ(ready[1], 0.010 + 0.002 + 0.003 + 0.004 + 0.005);
}

TEST(IterationPlan, ComputePhasesEndWhereBucketsBecomeReadyAndAddUpToForwardAndBackward) {
  const IterationPlan plan(fourTensors(), 2'000'000);
  const std::vector<double> phases = plan.computePhases();
  ASSERT_EQ(phases.size(), plan.buckets().size() + 1);
  const std::vector<double> ready = plan.bucketReadySeconds();
  double end = 0;
  for (std::size_t b = 0; b < ready.size(); ++b) {
    end += phases[b];
    EXPECT_DOUBLE_EQ(end, ready[b]) << "phase " << b;
  }
  EXPECT_NEAR(std::accumulate(phases.begin(), phases.end(), 0.0), 0.010 + 0.014, 1e-15);
  EXPECT_NEAR(phases.back(), 0, 1e-15);  // the last bucket closes with the last tensor
}

TEST(IterationPlan, WithoutOverlapEveryBucketWaitsForTheWholeBackwardPass) {
  const IterationPlan plan(fourTensors(), 1'000'000, /*overlapBackward=*/false);
  ASSERT_EQ(plan.buckets().size(), 4u);
  const std::vector<double> phases = plan.computePhases();
  EXPECT_DOUBLE_EQ(phases[0], 0.024);
  for (std::size_t b = 1; b < phases.size(); ++b) EXPECT_EQ(phases[b], 0) << "phase " << b;
}

TEST(IterationPlan, AnIterationWithoutCommunicationIsItsCompute) {
  const IterationPlan plan(fourTensors(), 2'000'000);
  const IterationTiming timing = timeIteration(plan, {0, 0});
  EXPECT_DOUBLE_EQ(timing.iterationSeconds, plan.workload().computeSeconds());
  EXPECT_DOUBLE_EQ(timing.exposedCommunicationSeconds(), 0);
}

TEST(IterationPlan, AnAllreduceLongerThanTheRestOfBackwardIsExposed) {
  const IterationPlan plan(fourTensors(), 2'000'000);
  // Bucket 0 is ready at 15 ms; a 20 ms allreduce ends at 35 ms, 11 ms after backward (24 ms); bucket 1's
  // 1 ms allreduce follows it. Exposed: 36 - 24 = 12 ms.
  const IterationTiming timing = timeIteration(plan, {0.020, 0.001});
  EXPECT_NEAR(timing.exposedCommunicationSeconds(), 0.012, 1e-12);
}

// Six tensors of three layers (weight and bias each), 1 MB of fp32 gradients per weight, 4 kB per bias.
TrainingWorkload threeLayers() {
  TrainingWorkload workload;
  workload.forwardSeconds = 0.010;
  for (const char* layer : {"fc", "conv2", "conv1"}) {
    workload.gradients.push_back({std::string(layer) + ".bias", 1000, 0.0001});
    workload.gradients.push_back({std::string(layer) + ".weight", 250'000, 0.002});
  }
  return workload;
}

TEST(IterationPlan, DdpClosesItsFirstBucketAtTheFirstBucketSizeAndTheOthersAtTheCap) {
  // 1,004,000 bytes reach the 1 MB first bucket after fc; then 2 MB buckets: conv2 and conv1 together.
  const IterationPlan plan(threeLayers(), GradientFusion{FusionPolicy::Ddp, 2'000'000, 1'000'000});
  ASSERT_EQ(plan.buckets().size(), 2u);
  EXPECT_EQ(plan.buckets()[0].lastTensor, 1);
  EXPECT_EQ(plan.buckets()[1].lastTensor, 5);
  // The size policy, with the same cap, has no small first bucket.
  EXPECT_EQ(IterationPlan(threeLayers(), 2'000'000).buckets().front().lastTensor, 3);
}

TEST(IterationPlan, PerLayerFusionAllreducesEachLayersTensorsTogether) {
  const IterationPlan plan(threeLayers(), GradientFusion{FusionPolicy::PerLayer});
  ASSERT_EQ(plan.buckets().size(), 3u);
  for (std::size_t b = 0; b < 3; ++b) {
    EXPECT_EQ(plan.buckets()[b].lastTensor, static_cast<int>(2 * b + 1));
    EXPECT_EQ(plan.buckets()[b].elements.count, 251'000);
  }
}

TEST(IterationPlan, HorovodFusesTheTensorsOfOneCycleWhileTheyFitTheThreshold) {
  // Ready at 10.1, 12.1, 12.2, 14.2, 14.3 and 16.3 ms. A 100 ms cycle holds them all, as one bucket; a
  // threshold of 1.5 MB lets no two weights share one, and a weight larger than it goes alone.
  EXPECT_EQ(IterationPlan(threeLayers(), GradientFusion{FusionPolicy::Horovod, 64 << 20, 1, 0.1}).buckets().size(), 1u);
  const IterationPlan capped(threeLayers(), GradientFusion{FusionPolicy::Horovod, 1'500'000, 1, 0.1});
  ASSERT_EQ(capped.buckets().size(), 3u);
  EXPECT_EQ(capped.buckets()[0].lastTensor, 2);  // fc.bias, fc.weight and conv2.bias: 1,008,000 bytes
  EXPECT_EQ(IterationPlan(threeLayers(), GradientFusion{FusionPolicy::Horovod, 500'000, 1, 0.1}).buckets().size(), 6u);
  // A 2 ms cycle: ticks at 12, 14, 16 and 18 ms gather {fc.bias}, {fc.weight, conv2.bias}, {conv2.weight,
  // conv1.bias}, {conv1.weight}.
  const IterationPlan cycled(threeLayers(), GradientFusion{FusionPolicy::Horovod, 64 << 20, 1, 0.002});
  ASSERT_EQ(cycled.buckets().size(), 4u);
  EXPECT_EQ(cycled.buckets()[1].lastTensor, 2);
  EXPECT_DOUBLE_EQ(cycled.nextTick(0.0101), 0.012);
  EXPECT_DOUBLE_EQ(cycled.cycleSeconds(), 0.002);
  EXPECT_EQ(IterationPlan(threeLayers(), 1).cycleSeconds(), 0);
  EXPECT_EQ(IterationPlan(threeLayers(), 1).nextTick(0.0101), 0.0101);
}

}  // namespace
}  // namespace ddl
