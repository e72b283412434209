#pragma once
// What one GPU does in a training iteration under a parallelism (parallelism.hpp), as both engines run it:
// compute phases one after another on the GPU, and collectives one after another on one communication
// stream, each tied to the other by two rules:
//
// - collective c may start once the phase `readyAfter` has ended (kIterationStart: once the iteration has
//   started) and collective c-1 has ended;
// - phase k may start once phase k-1 has ended and, where it has one, the collective it `waitsFor` has ended.
//
// The iteration ends when its last phase and its last collective have. Both indices only grow along the
// stream, so a GPU may count the phases that ended and the collectives that did.
//
// - ddp: backward phases cut where buckets fill (IterationPlan::computePhases); each bucket allreduced once
//   full; the optimizer waits for the last.
// - zero1, zero2: the same phases; each bucket reduce-scattered once full; the optimizer updates a 1/N shard
//   after the last; then each bucket's updated parameters all-gathered, ending the iteration. DeepSpeed runs
//   both stages through one optimizer (stage_1_and_2.py); reducing each bucket during backward is its
//   overlap_comm, which stage 1 without it does after backward instead: here both overlap.
// - zero3, fsdp: units are the buckets. Forward runs unit by unit in forward order (the reverse of backprop),
//   each unit's share of the forward time in proportion to its share of the backward time; each unit's
//   all-gather is issued while the unit before it computes (one unit of prefetch, as FSDP's
//   limit_all_gathers allows), and its forward waits for it. Backward runs unit by unit, each waiting for its
//   all-gather, issued (BACKWARD_PRE prefetch) while the unit before it computes; each unit's gradients are
//   reduce-scattered once its backward ends; the optimizer updates a 1/N shard after the last. Every unit is
//   gathered again for backward, the first of backward too, which FSDP keeps from forward where it is the
//   root's and DeepSpeed where it is reused at once: up to one unit's all-gather too many. FSDP issues
//   its all-gathers and reduce-scatters on two streams; here they share one, in the order FSDP issues them.
// - hybrid: fsdp within each node (its all-gathers and reduce-scatters over the node's GPUs), and after each
//   unit's reduce-scatter an allreduce of the node's shard of it across the nodes, ready at the same time,
//   as FSDP's HYBRID_SHARD reduces gradients; the optimizer updates a 1/(GPUs per node) shard.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "algorithms/schedule/collective.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/parallelism.hpp"

namespace ddl {

struct ComputePhase {
  std::string name;  // "backward to bucket 2", "forward of unit 3", "optimizer"
  double seconds = 0;
  int waitsFor = -1;  // the collective it waits for; -1: none
};

// Phase index meaning the start of the iteration, for collectives ready at once.
inline constexpr int kIterationStart = -1;

struct PlannedCollective {
  CollectiveKind kind = CollectiveKind::Allreduce;
  std::size_t unit = 0;  // the bucket whose elements it moves, in IterationPlan::buckets()
  int readyAfter = kIterationStart;
  // The GPUs that run it together (all, or under hybrid a node's, or one of each node's), and the share of
  // the unit they move: 1, or under hybrid's allreduce across nodes 1/(GPUs per node).
  int groupRanks = 1;
  int unitShare = 1;
};

struct IterationSteps {
  Parallelism parallelism = Parallelism::Ddp;
  int gpus = 1;
  int shardRanks = 1;  // shardingRanks: the GPUs a unit is sharded over
  std::vector<ComputePhase> phases;
  std::vector<PlannedCollective> collectives;
};

// The steps of an iteration of `plan` on one of `gpus` GPUs under `parallelism`, nodes holding
// `ranksPerNode` of them (read by hybrid alone). std::invalid_argument for a sharded plan whose buckets are
// cut by Horovod's cycles (a sharded framework has none) or whose backward does not overlap, and for hybrid
// where the nodes' GPUs do not divide `gpus`.
IterationSteps iterationSteps(const IterationPlan& plan, Parallelism parallelism, int gpus, int ranksPerNode = 0);

// The collective kinds an iteration under `parallelism` runs, each over every bucket: what a sweep needs a
// schedule of.
std::span<const CollectiveKind> collectiveKindsOf(Parallelism parallelism);

// The elements each collective of a bucket of `elements` runs over: the bucket's own, or under a sharded plan
// the unit padded to a multiple of the GPUs, so that every rank's shard has the same size, as FSDP pads its
// flat parameters to its sharding group (torch/distributed/fsdp/flat_param.py, _get_shard) and ZeRO its
// partitions: at most gpus - 1 elements more (hybrid's node group needs fewer; padding to all the GPUs also
// evens its shard across the nodes), and rings whose blocks are all alike.
Elements collectiveElements(Elements elements, Parallelism parallelism, int gpus);

// The bytes a collective moves per group: its unit's, or the node's share of it (hybrid's allreduce).
double collectiveBytes(const IterationPlan& plan, const PlannedCollective& collective);

// A collective's span name: "allreduce of bucket 3 (12.6 MB)", "reduce-scatter of unit 3 (12.6 MB)".
std::string plannedCollectiveName(Parallelism parallelism, const PlannedCollective& collective, double bytes);

}  // namespace ddl
