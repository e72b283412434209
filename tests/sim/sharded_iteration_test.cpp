// Sharded iterations (zero1, zero2, zero3, fsdp: algorithms/training/iteration_steps.hpp) as both engines
// simulate them: where no link is shared, in the time the steps' two rules give for the ring's closed-form
// reduce-scatters and all-gathers; on shipped topologies, with and without effects, the step engine as the
// SimGrid engine.

#include <algorithm>
#include <tuple>

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/collectives/ring_phases.hpp"
#include "sim/simgrid/iteration_on_simgrid.hpp"
#include "sim/step/step_iteration.hpp"
#include "tests/sim/dedicated_link_platform.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

constexpr Parallelism kSharded[] = {Parallelism::Zero1, Parallelism::Zero2, Parallelism::Zero3, Parallelism::Hybrid};

TrainingWorkload smallWorkload() {
  TrainingWorkload workload;
  workload.model = "test";
  workload.forwardSeconds = 0.010;
  workload.optimizerSeconds = 0.004;
  for (int i = 0; i < 12; ++i)
    workload.gradients.push_back({"t" + std::to_string(i), i == 0 ? 2'000'000 : 300'000 + 1000 * i, 0.0015 + 0.0001 * i});
  return workload;
}

// Rings for every kind; hybrid over nodes of `ranksPerNode`.
IterationCollectives ringCollectives(const IterationPlan& plan, Parallelism parallelism, int gpus, int ranksPerNode = 4) {
  return shardedCollectives(plan, parallelism, shardedAlgorithmsNamed("ring"), {}, gpus, ranksPerNode);
}

// The two rules of the steps, walked with each collective taking its closed-form time: a collective starts
// when the one before it and the phase it is ready after have ended, a phase when the one before it and
// the collective it waits for have.
double analyticIteration(const IterationCollectives& planned, const CostModel& model) {
  const IterationSteps& steps = planned.steps;
  const std::size_t phases = steps.phases.size(), collectives = steps.collectives.size();
  std::vector<double> phaseEnd(phases), collectiveEnd(collectives);
  std::size_t k = 0, c = 0;
  while (k < phases || c < collectives) {
    const bool progressed = [&] {
      if (c < collectives && steps.collectives[c].readyAfter < static_cast<int>(k)) {
        const PlannedCollective& collective = steps.collectives[c];
        const double ready = collective.readyAfter < 0 ? 0 : phaseEnd[static_cast<std::size_t>(collective.readyAfter)];
        // The unit padded to a multiple of the GPUs, or a node's share of it; each group on links of its own.
        const Elements elements = planned.scheduleOf(collective).spec().elements / collective.unitShare;
        const int members = collective.groupRanks;
        const double reduceScatter = ringReduceScatterSeconds(members, elements, 4, model.link(0), model.reduceSecondsPerByte());
        const double allGather = ringAllGatherSeconds(members, elements, 4, model.link(0));
        const double seconds = collective.kind == CollectiveKind::ReduceScatter ? reduceScatter
                               : collective.kind == CollectiveKind::AllGather   ? allGather
                                                                                : reduceScatter + allGather;
        collectiveEnd[c] = std::max(ready, c > 0 ? collectiveEnd[c - 1] : 0) + seconds;
        ++c;
        return true;
      }
      if (k < phases && steps.phases[k].waitsFor < static_cast<int>(c)) {
        const ComputePhase& phase = steps.phases[k];
        const double ready = phase.waitsFor < 0 ? 0 : collectiveEnd[static_cast<std::size_t>(phase.waitsFor)];
        phaseEnd[k] = std::max(ready, k > 0 ? phaseEnd[k - 1] : 0) + phase.seconds;
        ++k;
        return true;
      }
      return false;
    }();
    if (!progressed) ADD_FAILURE() << "the steps wait on each other";
    if (!progressed) return 0;
  }
  return std::max(phaseEnd.back(), collectiveEnd.empty() ? 0 : collectiveEnd.back());
}

TEST(ShardedIteration, TakesTheTimeOfItsStepsWhenNoLinkIsShared) {
  const CostModel model = CostModel::uniform(8, {3.1e-6, 1 / 12.5e9}, 1 / 244e9);
  for (Parallelism parallelism : kSharded)
    for (std::int64_t bucketBytes : {1LL, 4LL << 20, 1LL << 40}) {
      const IterationPlan plan(smallWorkload(), bucketBytes);
      const IterationCollectives collectives = ringCollectives(plan, parallelism, 8);
      const double analytic = analyticIteration(collectives, model);
      const std::string label = std::string(parallelismName(parallelism)) + ", " + std::to_string(plan.buckets().size()) + " buckets";
      for (const bool step : {false, true}) {
        const DedicatedLinkPlatform platform(model);
        const double simulated = step ? step::simulateIteration(plan, collectives, platform).iterationSeconds
                                      : simulateIteration(plan, collectives, platform).iterationSeconds;
        EXPECT_NEAR(simulated, analytic, 1e-4 * analytic) << label << (step ? ", step engine" : ", SimGrid engine");
      }
    }
}

// zero3 steps the optimizer on an eighth of the parameters, but its first all-gather has no compute to hide
// behind and it moves half as much again: it exposes more communication than DDP.
TEST(ShardedIteration, ExposesMoreCommunicationThanDdpButStepsTheOptimizerOnAShard) {
  const CostModel model = CostModel::uniform(8, {3.1e-6, 1 / 12.5e9}, 1 / 244e9);
  const IterationPlan plan(smallWorkload(), 4 << 20);
  const AlgorithmDefinition& ring = findAlgorithm(CollectiveKind::Allreduce, "ring");
  const double compute = plan.workload().computeSeconds() - 0.004 + 0.004 / 8;
  const double ddp = step::simulateIteration(plan, bucketAllreduces(plan, ring, {}, 8), DedicatedLinkPlatform(model)).iterationSeconds;
  const double zero3 = step::simulateIteration(plan, ringCollectives(plan, Parallelism::Zero3, 8), DedicatedLinkPlatform(model)).iterationSeconds;
  EXPECT_GT(zero3 - compute, ddp - plan.workload().computeSeconds());
  // With links that cost nothing, only the compute is left: the optimizer over 8 (hybrid: over a node's 4).
  const CostModel free = CostModel::uniform(8, {0, 0}, 0);
  for (Parallelism parallelism : kSharded) {
    const double shardedCompute = parallelism == Parallelism::Hybrid ? compute - 0.004 / 8 + 0.004 / 4 : compute;
    EXPECT_NEAR(step::simulateIteration(plan, ringCollectives(plan, parallelism, 8, 4), DedicatedLinkPlatform(free)).iterationSeconds,
                shardedCompute, 1e-9)
        << parallelismName(parallelism);
  }
}

TEST(ShardedIteration, ReportsEachCollectiveWithItsKindsBusBandwidth) {
  const CostModel model = CostModel::uniform(4, {3.1e-6, 1 / 12.5e9}, 1 / 244e9);
  const IterationPlan plan(smallWorkload(), 4 << 20);
  const IterationCollectives collectives = ringCollectives(plan, Parallelism::Zero3, 4);
  const IterationSimulation simulated = step::simulateIteration(plan, collectives, DedicatedLinkPlatform(model));
  ASSERT_EQ(simulated.allreduces.size(), collectives.steps.collectives.size());
  for (std::size_t c = 0; c < simulated.allreduces.size(); ++c) {
    const PlannedCollective& planned = collectives.steps.collectives[c];
    const CollectiveMeasurement& measured = simulated.allreduces[c];
    EXPECT_DOUBLE_EQ(measured.bytes, 4.0 * static_cast<double>(plan.buckets()[planned.unit].elements.count));
    EXPECT_NEAR(measured.busbwBps, measured.algbwBps * 3 / 4, 1e-6 * measured.algbwBps) << c;  // (n-1)/n, not 2(n-1)/n
  }
}

// Hybrid on 16 GPUs in nodes of 4: each unit all-gathered and reduce-scattered over a node's 4 GPUs, and a
// quarter of it allreduced across the 4 nodes: busbw by each group's own count.
TEST(ShardedIteration, HybridReportsEachCollectiveOverItsOwnGroup) {
  const CostModel model = CostModel::uniform(16, {3.1e-6, 1 / 12.5e9}, 1 / 244e9);
  const IterationPlan plan(smallWorkload(), 4 << 20);
  const IterationCollectives collectives = ringCollectives(plan, Parallelism::Hybrid, 16, 4);
  const IterationSimulation simulated = step::simulateIteration(plan, collectives, DedicatedLinkPlatform(model));
  ASSERT_EQ(simulated.allreduces.size(), 4 * plan.buckets().size());
  for (std::size_t c = 0; c < simulated.allreduces.size(); ++c) {
    const PlannedCollective& planned = collectives.steps.collectives[c];
    const CollectiveMeasurement& measured = simulated.allreduces[c];
    const double unitBytes = 4.0 * static_cast<double>(plan.buckets()[planned.unit].elements.count);
    const bool across = planned.kind == CollectiveKind::Allreduce;
    EXPECT_DOUBLE_EQ(measured.bytes, across ? unitBytes / 4 : unitBytes) << c;
    EXPECT_NEAR(measured.busbwBps, measured.algbwBps * (across ? 2.0 * 3 / 4 : 3.0 / 4), 1e-6 * measured.algbwBps) << c;
  }
}

// Every rank's iteration, collective by collective and span by span, on shipped topologies across nodes.
void expectAgreement(const IterationPlan& plan, const IterationCollectives& collectives, const Cluster& cluster,
                     const IterationEffects& effects, const std::string& label) {
  IterationTimeline messageTimeline, stepTimeline;
  const IterationSimulation message = simulateIteration(plan, collectives, cluster, effects, &messageTimeline, "g");
  const IterationSimulation step = step::simulateIteration(plan, collectives, cluster, effects, &stepTimeline, "g");
  EXPECT_NEAR(step.iterationSeconds, message.iterationSeconds, 1e-4 * message.iterationSeconds) << label;
  ASSERT_EQ(step.allreduces.size(), message.allreduces.size()) << label;
  for (std::size_t c = 0; c < step.allreduces.size(); ++c)
    EXPECT_NEAR(step.allreduces[c].seconds, message.allreduces[c].seconds, 1e-4 * message.allreduces[c].seconds + 1e-12)
        << label << ", collective " << c;
  ASSERT_EQ(stepTimeline.spans.size(), messageTimeline.spans.size()) << label;
  auto key = [](const TimelineSpan& span) { return std::tuple(span.rank, span.lane, span.name, span.startSeconds > 0); };
  auto sorted = [&](std::vector<TimelineSpan> spans) {
    std::sort(spans.begin(), spans.end(), [&](const auto& a, const auto& b) { return std::tuple(key(a), a.endSeconds) < std::tuple(key(b), b.endSeconds); });
    return spans;
  };
  const std::vector<TimelineSpan> a = sorted(messageTimeline.spans), b = sorted(stepTimeline.spans);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].name, a[i].name) << label;
    EXPECT_NEAR(b[i].endSeconds, a[i].endSeconds, 1e-4 * message.iterationSeconds) << label << ": " << a[i].name;
  }
}

TEST(ShardedIteration, TheStepEngineSimulatesItAsTheSimGridEngineDoes) {
  const Topology topology = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json");
  IterationEffects effects;
  effects.computeJitter = 0.02;
  effects.overlapSlowdown = 0.1;
  effects.allreduceOverheadSeconds = 20e-6;
  effects.iterations = 3;
  for (Parallelism parallelism : kSharded)
    for (int gpus : {8, 16}) {
      const IterationPlan plan(smallWorkload(), 4 << 20);
      const IterationCollectives collectives = ringCollectives(plan, parallelism, gpus, topology.node.gpus);
      const Cluster cluster(topology, gpus, Placement::Packed);
      const std::string label = std::string(parallelismName(parallelism)) + " at " + std::to_string(gpus) + " GPUs";
      expectAgreement(plan, collectives, cluster, {}, label + ", no effects");
      expectAgreement(plan, collectives, cluster, effects, label + ", with effects");
    }
}

TEST(ShardedIteration, TheTimelineNamesEachUnitsCollectives) {
  const IterationPlan plan(smallWorkload(), 4 << 20);
  IterationTimeline timeline;
  step::simulateIteration(plan, ringCollectives(plan, Parallelism::Zero3, 4),
                          DedicatedLinkPlatform(CostModel::uniform(4, {3.1e-6, 1 / 12.5e9}, 1 / 244e9)), {}, &timeline, "g");
  auto count = [&](const std::string& lane, const std::string& prefix) {
    return std::count_if(timeline.spans.begin(), timeline.spans.end(), [&](const TimelineSpan& span) {
      return span.rank == 0 && span.lane == lane && span.name.rfind(prefix, 0) == 0;
    });
  };
  const auto units = static_cast<long>(plan.buckets().size());
  EXPECT_EQ(count("all-gather", "all-gather of unit "), 2 * units);
  EXPECT_EQ(count("reduce-scatter", "reduce-scatter of unit "), units);
  EXPECT_EQ(count("compute", "forward of unit "), units);
  EXPECT_EQ(count("compute", "backward of unit "), units);
  EXPECT_EQ(count("compute", "optimizer"), 1);
}

}  // namespace
}  // namespace ddl
