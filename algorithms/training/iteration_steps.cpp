#include "algorithms/training/iteration_steps.hpp"

#include <cstdio>
#include <stdexcept>

#include "algorithms/training/iteration_timeline.hpp"

namespace ddl {
namespace {

// The optimizer after every collective so far, on a 1/N shard where the plan shards the optimizer state.
ComputePhase optimizerPhase(const IterationPlan& plan, const IterationSteps& steps) {
  return {"optimizer", plan.workload().optimizerSeconds / steps.shardRanks, static_cast<int>(steps.collectives.size()) - 1};
}

// ddp, zero1, zero2: the backward phases of IterationPlan::computePhases, each bucket's collective
// ready once it is full.
void bucketPhases(const IterationPlan& plan, CollectiveKind kind, IterationSteps& steps) {
  const std::vector<double> phases = plan.computePhases();
  const std::size_t buckets = plan.buckets().size();
  for (std::size_t k = 0; k < phases.size(); ++k) {
    steps.phases.push_back({computePhaseName(k, buckets), phases[k], -1});
    if (k < buckets) steps.collectives.push_back({kind, k, static_cast<int>(k), steps.gpus, 1});
  }
}

void unitPhases(const IterationPlan& plan, IterationSteps& steps) {
  const std::vector<double> ready = plan.bucketReadySeconds();
  const TrainingWorkload& workload = plan.workload();
  const std::size_t units = plan.buckets().size();
  const double backward = workload.backwardSeconds();
  std::vector<double> unitBackward(units);
  for (std::size_t u = 0; u < units; ++u) unitBackward[u] = ready[u] - (u == 0 ? workload.forwardSeconds : ready[u - 1]);
  // All-gathers and reduce-scatters run over the GPUs a unit is sharded over.
  auto add = [&](CollectiveKind kind, std::size_t unit, int readyAfter) {
    steps.collectives.push_back({kind, unit, readyAfter, steps.shardRanks, 1});
    return static_cast<int>(steps.collectives.size()) - 1;
  };
  auto lastPhase = [&] { return static_cast<int>(steps.phases.size()) - 1; };
  // Forward: units in forward order, the last of backprop first. The all-gather of the unit at forward
  // position k is issued when position k-1 starts computing, that is once position k-2 has ended.
  std::vector<int> gathered(units);
  for (std::size_t k = 0; k < units; ++k) {
    const std::size_t unit = units - 1 - k;
    const int readyAfter = k < 2 ? kIterationStart : lastPhase() - 1;
    gathered[unit] = add(CollectiveKind::AllGather, unit, readyAfter);
    const double share = backward > 0 ? unitBackward[unit] / backward : 1.0 / static_cast<double>(units);
    steps.phases.push_back({"forward of unit " + std::to_string(unit), workload.forwardSeconds * share, gathered[unit]});
  }
  // Backward: the unit's all-gather issued when the unit before it starts (two issued as backward starts);
  // its reduce-scatter once it ends.
  const int forwardEnd = lastPhase();
  for (std::size_t unit = 0; unit < units; ++unit) {
    if (unit == 0) gathered[0] = add(CollectiveKind::AllGather, 0, forwardEnd);
    if (unit + 1 < units) gathered[unit + 1] = add(CollectiveKind::AllGather, unit + 1, unit == 0 ? forwardEnd : lastPhase());
    steps.phases.push_back({"backward of unit " + std::to_string(unit), unitBackward[unit], gathered[unit]});
    add(CollectiveKind::ReduceScatter, unit, lastPhase());
    // Hybrid: the node's shard of the unit's gradients, allreduced with the same shard of every other node.
    if (steps.parallelism == Parallelism::Hybrid && steps.shardRanks < steps.gpus)
      steps.collectives.push_back({CollectiveKind::Allreduce, unit, lastPhase(), steps.gpus / steps.shardRanks, steps.shardRanks});
  }
}

}  // namespace

IterationSteps iterationSteps(const IterationPlan& plan, Parallelism parallelism, int gpus, int ranksPerNode) {
  if (isSharded(parallelism) && plan.cycleSeconds() > 0)
    throw std::invalid_argument(std::string(parallelismName(parallelism)) + " fills no buckets on Horovod's cycles");
  if (isSharded(parallelism) && !plan.overlapsBackward())
    throw std::invalid_argument(std::string(parallelismName(parallelism)) + " overlaps backward with its collectives");
  IterationSteps steps;
  steps.parallelism = parallelism;
  steps.gpus = gpus;
  steps.shardRanks = shardingRanks(parallelism, gpus, ranksPerNode);
  if (gpus % steps.shardRanks != 0)
    throw std::invalid_argument("hybrid shards within nodes of " + std::to_string(ranksPerNode) + " GPUs: " + std::to_string(gpus) +
                                " GPUs leave one part full");
  if (shardsParameters(parallelism)) {
    unitPhases(plan, steps);
    steps.phases.push_back(optimizerPhase(plan, steps));
    return steps;
  }
  bucketPhases(plan, parallelism == Parallelism::Ddp ? CollectiveKind::Allreduce : CollectiveKind::ReduceScatter, steps);
  steps.phases.push_back(optimizerPhase(plan, steps));
  if (parallelism != Parallelism::Ddp) {
    const int optimizer = static_cast<int>(steps.phases.size()) - 1;
    for (std::size_t b = 0; b < plan.buckets().size(); ++b) steps.collectives.push_back({CollectiveKind::AllGather, b, optimizer, gpus, 1});
  }
  return steps;
}

Elements collectiveElements(Elements elements, Parallelism parallelism, int gpus) {
  return isSharded(parallelism) ? (elements + gpus - 1) / gpus * gpus : elements;
}

std::span<const CollectiveKind> collectiveKindsOf(Parallelism parallelism) {
  static constexpr CollectiveKind kDdp[] = {CollectiveKind::Allreduce};
  static constexpr CollectiveKind kHybrid[] = {CollectiveKind::ReduceScatter, CollectiveKind::AllGather, CollectiveKind::Allreduce};
  static constexpr CollectiveKind kSharded[] = {CollectiveKind::ReduceScatter, CollectiveKind::AllGather};
  if (parallelism == Parallelism::Ddp) return kDdp;
  if (parallelism == Parallelism::Hybrid) return kHybrid;
  return kSharded;
}

double collectiveBytes(const IterationPlan& plan, const PlannedCollective& collective) {
  return static_cast<double>(plan.buckets()[collective.unit].elements.count) * plan.workload().elementBytes / collective.unitShare;
}

std::string plannedCollectiveName(Parallelism parallelism, const PlannedCollective& collective, double bytes) {
  if (parallelism == Parallelism::Ddp) return bucketAllreduceName(collective.unit, bytes);
  char text[96];
  std::snprintf(text, sizeof text, "%s of %s %zu (%.1f MB)", std::string(toString(collective.kind)).c_str(),
                shardsParameters(parallelism) ? "unit" : "bucket", collective.unit, bytes / 1e6);
  return text;
}

}  // namespace ddl
