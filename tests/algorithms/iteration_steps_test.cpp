// What a GPU does in an iteration under each parallelism (algorithms/training/iteration_steps.hpp), in
// closed form: the phases and their times, the collectives and the bytes they move, the two rules that tie
// them, and what each plan keeps in memory against ZeRO's own figure.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "algorithms/training/iteration_steps.hpp"

namespace ddl {
namespace {

constexpr Parallelism kEvery[] = {Parallelism::Ddp, Parallelism::Zero1, Parallelism::Zero2, Parallelism::Zero3, Parallelism::Fsdp,
                                  Parallelism::Hybrid};
// Nodes of four GPUs, which only hybrid reads.
constexpr int kPerNode = 4;

// Six tensors in backprop order, 1 MB of fp32 gradients each, 2 to 7 ms of backward; buckets of two.
IterationPlan sixTensors() {
  TrainingWorkload workload;
  workload.forwardSeconds = 0.012;
  workload.optimizerSeconds = 0.008;
  for (int i = 0; i < 6; ++i) workload.gradients.push_back({"t" + std::to_string(i), 250'000, 0.002 + 0.001 * i});
  return IterationPlan(workload, 2'000'000);
}

double sumOfPhases(const IterationSteps& steps) {
  return std::accumulate(steps.phases.begin(), steps.phases.end(), 0.0,
                         [](double sum, const ComputePhase& phase) { return sum + phase.seconds; });
}

// The bytes each GPU sends in an iteration, by nccl-tests' bus factors: what the collectives cost in bandwidth.
double busBytesPerGpu(const IterationPlan& plan, const IterationSteps& steps, int gpus) {
  double bytes = 0;
  for (const PlannedCollective& collective : steps.collectives)
    bytes += busBandwidthFactor(collective.kind, gpus) * static_cast<double>(plan.buckets()[collective.unit].elements.count) * 4;
  return bytes;
}

TEST(IterationSteps, DdpIsThePlanItself) {
  const IterationPlan plan = sixTensors();
  const IterationSteps steps = iterationSteps(plan, Parallelism::Ddp, 8);
  const std::vector<double> phases = plan.computePhases();
  ASSERT_EQ(steps.phases.size(), phases.size() + 1);
  for (std::size_t k = 0; k < phases.size(); ++k) {
    EXPECT_EQ(steps.phases[k].seconds, phases[k]) << k;
    EXPECT_EQ(steps.phases[k].waitsFor, -1) << k;
  }
  ASSERT_EQ(steps.collectives.size(), plan.buckets().size());
  for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
    EXPECT_EQ(steps.collectives[b].kind, CollectiveKind::Allreduce);
    EXPECT_EQ(steps.collectives[b].unit, b);
    EXPECT_EQ(steps.collectives[b].readyAfter, static_cast<int>(b));
  }
  EXPECT_EQ(steps.phases.back().name, "optimizer");
  EXPECT_EQ(steps.phases.back().seconds, 0.008);  // not sharded
  EXPECT_EQ(steps.phases.back().waitsFor, static_cast<int>(steps.collectives.size()) - 1);
}

TEST(IterationSteps, Zero1And2ReduceScatterEachBucketThenAllGatherItAfterAShardedStep) {
  const IterationPlan plan = sixTensors();
  const std::size_t buckets = plan.buckets().size();
  for (Parallelism parallelism : {Parallelism::Zero1, Parallelism::Zero2}) {
    const IterationSteps steps = iterationSteps(plan, parallelism, 8);
    ASSERT_EQ(steps.collectives.size(), 2 * buckets);
    const int optimizer = static_cast<int>(steps.phases.size()) - 1;
    for (std::size_t b = 0; b < buckets; ++b) {
      EXPECT_EQ(steps.collectives[b].kind, CollectiveKind::ReduceScatter);
      EXPECT_EQ(steps.collectives[b].readyAfter, static_cast<int>(b));
      EXPECT_EQ(steps.collectives[buckets + b].kind, CollectiveKind::AllGather);
      EXPECT_EQ(steps.collectives[buckets + b].unit, b);
      EXPECT_EQ(steps.collectives[buckets + b].readyAfter, optimizer);
    }
    EXPECT_DOUBLE_EQ(steps.phases.back().seconds, 0.008 / 8);
    EXPECT_EQ(steps.phases.back().waitsFor, static_cast<int>(buckets) - 1);  // the last reduce-scatter
    // A reduce-scatter and an all-gather move what one allreduce does.
    EXPECT_DOUBLE_EQ(busBytesPerGpu(plan, steps, 8), busBytesPerGpu(plan, iterationSteps(plan, Parallelism::Ddp, 8), 8));
  }
}

TEST(IterationSteps, Zero3GathersEachUnitTwiceAndReduceScattersItOnce) {
  const IterationPlan plan = sixTensors();
  const std::size_t units = plan.buckets().size();
  for (Parallelism parallelism : {Parallelism::Zero3, Parallelism::Fsdp}) {
    const IterationSteps steps = iterationSteps(plan, parallelism, 16);
    std::map<std::pair<CollectiveKind, std::size_t>, int> count;
    for (const PlannedCollective& collective : steps.collectives) ++count[{collective.kind, collective.unit}];
    for (std::size_t u = 0; u < units; ++u) {
      EXPECT_EQ((count[{CollectiveKind::AllGather, u}]), 2) << "unit " << u;
      EXPECT_EQ((count[{CollectiveKind::ReduceScatter, u}]), 1) << "unit " << u;
    }
    EXPECT_EQ(steps.collectives.size(), 3 * units);
    // Two all-gathers and a reduce-scatter of every parameter: one and a half allreduces' bytes.
    EXPECT_DOUBLE_EQ(busBytesPerGpu(plan, steps, 16), 1.5 * busBytesPerGpu(plan, iterationSteps(plan, Parallelism::Ddp, 16), 16));
    // Forward unit by unit in forward order, backward in backprop order, and a 1/N optimizer step.
    ASSERT_EQ(steps.phases.size(), 2 * units + 1);
    EXPECT_EQ(steps.phases[0].name, "forward of unit " + std::to_string(units - 1));
    EXPECT_EQ(steps.phases[units].name, "backward of unit 0");
    double forward = 0, backward = 0;
    for (std::size_t k = 0; k < units; ++k) forward += steps.phases[k].seconds;
    for (std::size_t k = units; k < 2 * units; ++k) backward += steps.phases[k].seconds;
    EXPECT_NEAR(forward, 0.012, 1e-15);
    EXPECT_NEAR(backward, plan.workload().backwardSeconds(), 1e-15);
    EXPECT_DOUBLE_EQ(steps.phases.back().seconds, 0.008 / 16);
    // A unit's share of the forward is its share of the backward: unit 0 (t0, t1) has 5 of 27 ms.
    EXPECT_NEAR(steps.phases[units - 1].seconds, 0.012 * 5.0 / 27.0, 1e-15);
  }
}

TEST(IterationSteps, Zero3ComputesEachUnitOnlyOnceItsParametersAreGathered) {
  const IterationPlan plan = sixTensors();
  const IterationSteps steps = iterationSteps(plan, Parallelism::Zero3, 4);
  for (std::size_t k = 0; k + 1 < steps.phases.size(); ++k) {
    const ComputePhase& phase = steps.phases[k];
    ASSERT_GE(phase.waitsFor, 0) << phase.name;
    const PlannedCollective& gathered = steps.collectives[static_cast<std::size_t>(phase.waitsFor)];
    EXPECT_EQ(gathered.kind, CollectiveKind::AllGather) << phase.name;
    EXPECT_NE(phase.name.find("unit " + std::to_string(gathered.unit)), std::string::npos) << phase.name;
    // Prefetched: issued while the phase before it computes, so ready once the one before that has ended;
    // only the first unit of backward, the last of forward, is gathered after forward.
    const int issuedBy = phase.name == "backward of unit 0" ? static_cast<int>(k) - 1 : std::max(kIterationStart, static_cast<int>(k) - 2);
    EXPECT_EQ(gathered.readyAfter, issuedBy) << phase.name;
  }
  // Each unit's gradients are reduce-scattered once its backward ends.
  for (const PlannedCollective& collective : steps.collectives) {
    if (collective.kind != CollectiveKind::ReduceScatter) continue;
    EXPECT_EQ(steps.phases[static_cast<std::size_t>(collective.readyAfter)].name, "backward of unit " + std::to_string(collective.unit));
  }
}

// Both engines count what ended on each side: the phase a collective waits for and the collective a phase
// waits for only grow, and nothing waits for what waits for it.
TEST(IterationSteps, EveryPlanCanBeFollowedByCounting) {
  const IterationPlan plan = sixTensors();
  for (Parallelism parallelism : kEvery) {
    const IterationSteps steps = iterationSteps(plan, parallelism, 8, kPerNode);
    int ready = kIterationStart;
    for (const PlannedCollective& collective : steps.collectives) {
      EXPECT_GE(collective.readyAfter, ready) << parallelismName(parallelism);
      ready = collective.readyAfter;
      EXPECT_LT(collective.readyAfter, static_cast<int>(steps.phases.size())) << parallelismName(parallelism);
    }
    int waited = -1;
    for (std::size_t k = 0; k < steps.phases.size(); ++k) {
      const ComputePhase& phase = steps.phases[k];
      if (phase.waitsFor < 0) continue;
      EXPECT_GE(phase.waitsFor, waited) << parallelismName(parallelism) << ": " << phase.name;
      waited = phase.waitsFor;
      EXPECT_LT(steps.collectives[static_cast<std::size_t>(phase.waitsFor)].readyAfter, static_cast<int>(k))
          << parallelismName(parallelism) << ": " << phase.name;
    }
  }
}

TEST(IterationSteps, ShardedComputeIsTheWholeComputeWithTheOptimizerOverTheGpus) {
  const IterationPlan plan = sixTensors();
  const double compute = plan.workload().computeSeconds();
  for (Parallelism parallelism : kEvery)
    for (int gpus : {1, 8, 64}) {
      const int shard = !isSharded(parallelism) ? 1 : parallelism == Parallelism::Hybrid ? std::min(gpus, kPerNode) : gpus;
      EXPECT_NEAR(sumOfPhases(iterationSteps(plan, parallelism, gpus, kPerNode)), compute - 0.008 + 0.008 / shard, 1e-15)
          << parallelismName(parallelism) << " at " << gpus;
    }
}

TEST(IterationSteps, ShardedPlansRefuseHorovodsCyclesAndBackwardWithoutOverlap) {
  TrainingWorkload workload = sixTensors().workload();
  GradientFusion horovod;
  horovod.policy = FusionPolicy::Horovod;
  const IterationPlan cycled(workload, horovod);
  const IterationPlan serial(workload, 2'000'000, /*overlapBackward=*/false);
  for (Parallelism parallelism : {Parallelism::Zero1, Parallelism::Zero2, Parallelism::Zero3, Parallelism::Fsdp, Parallelism::Hybrid}) {
    EXPECT_THROW(iterationSteps(cycled, parallelism, 8), std::invalid_argument) << parallelismName(parallelism);
    EXPECT_THROW(iterationSteps(serial, parallelism, 8), std::invalid_argument) << parallelismName(parallelism);
  }
  EXPECT_NO_THROW(iterationSteps(cycled, Parallelism::Ddp, 8));
}

// Hybrid, 16 GPUs in nodes of 4: fsdp within each node, and after each unit's reduce-scatter its node's
// quarter allreduced across the 4 nodes, ready at the same moment; the optimizer steps a quarter.
TEST(IterationSteps, HybridShardsWithinANodeAndAllreducesTheShardAcrossNodes) {
  const IterationPlan plan = sixTensors();
  const IterationSteps steps = iterationSteps(plan, Parallelism::Hybrid, 16, kPerNode);
  const std::size_t units = plan.buckets().size();
  ASSERT_EQ(steps.collectives.size(), 4 * units);
  EXPECT_EQ(steps.shardRanks, 4);
  EXPECT_DOUBLE_EQ(steps.phases.back().seconds, 0.008 / 4);
  for (std::size_t c = 0; c < steps.collectives.size(); ++c) {
    const PlannedCollective& collective = steps.collectives[c];
    if (collective.kind != CollectiveKind::Allreduce) {
      EXPECT_EQ(collective.groupRanks, 4) << c;
      EXPECT_EQ(collective.unitShare, 1) << c;
      continue;
    }
    ASSERT_GT(c, 0u);
    const PlannedCollective& reduced = steps.collectives[c - 1];
    EXPECT_EQ(reduced.kind, CollectiveKind::ReduceScatter) << c;
    EXPECT_EQ(reduced.unit, collective.unit) << c;
    EXPECT_EQ(reduced.readyAfter, collective.readyAfter) << c;
    EXPECT_EQ(collective.groupRanks, 4) << "one GPU of each of 4 nodes";
    EXPECT_EQ(collective.unitShare, 4) << "a node's quarter of the unit";
  }
  // Within one node there is nothing to allreduce across: fsdp's steps.
  EXPECT_EQ(iterationSteps(plan, Parallelism::Hybrid, 4, kPerNode).collectives.size(), 3 * units);
  EXPECT_THROW(iterationSteps(plan, Parallelism::Hybrid, 6, kPerNode), std::invalid_argument) << "a node part full";
}

TEST(IterationSteps, NamesParsedBack) {
  for (Parallelism parallelism : kEvery) EXPECT_EQ(parallelismNamed(parallelismName(parallelism)), parallelism);
  EXPECT_FALSE(parallelismNamed("zero4"));
  EXPECT_FALSE(parallelismNamed("FSDP"));
}

// ZeRO (Rajbhandari et al., SC'20), Figure 1: a 7.5B-parameter model with Adam in mixed precision
// (K = 12) on 64 GPUs keeps 120 GB per GPU under plain data parallelism, 31.4 GB sharding the optimizer
// state, 16.6 GB sharding the gradients too, 1.9 GB sharding everything.
TEST(ModelStateBytesPerGpu, MatchesZerosFigureOne) {
  const ModelStateBytes adam{2, 2, 12};
  const std::int64_t parameters = 7'500'000'000;
  EXPECT_NEAR(modelStateBytesPerGpu(Parallelism::Ddp, adam, parameters, 64, 0) / 1e9, 120, 0.05);
  EXPECT_NEAR(modelStateBytesPerGpu(Parallelism::Zero1, adam, parameters, 64, 0) / 1e9, 31.4, 0.05);
  EXPECT_NEAR(modelStateBytesPerGpu(Parallelism::Zero2, adam, parameters, 64, 0) / 1e9, 16.6, 0.05);
  EXPECT_NEAR(modelStateBytesPerGpu(Parallelism::Zero3, adam, parameters, 64, 0) / 1e9, 1.9, 0.05);
}

TEST(ModelStateBytesPerGpu, Zero3AddsTwoGatheredUnitsOnMoreThanOneGpu) {
  const ModelStateBytes sgd{4, 4, 4};
  EXPECT_DOUBLE_EQ(modelStateBytesPerGpu(Parallelism::Fsdp, sgd, 1000, 4, 100), 12.0 * 1000 / 4 + 2 * 4 * 100);
  EXPECT_DOUBLE_EQ(modelStateBytesPerGpu(Parallelism::Fsdp, sgd, 1000, 1, 100), 12.0 * 1000);
}

}  // namespace
}  // namespace ddl
