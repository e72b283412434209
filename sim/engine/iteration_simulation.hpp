#pragma once
// A training iteration as both engines simulate it (sim/engine/engine.hpp), and what they report of it.
//
// Every GPU follows the steps of the IterationPlan under its parallelism (algorithms/training/
// iteration_steps.hpp): its compute runs the phases, each once the collective it waits for has ended, and
// its communication runs the collectives one after another (one communication stream), each once the phase
// it is ready after has ended. Under ddp: backward hands each full bucket to its allreduce, and the optimizer
// waits for the last. The slowest GPU's iteration is the iteration.
//
// With effects (algorithms/training/iteration_effects.hpp), each rank's compute is scaled by its GPU's
// factor and its draw of the iteration, overheads are slept on the host, and while a rank's collective runs
// work of priority s shares the rank's one compute core with its compute, which then runs 1/(1+s) as fast:
// only overlap costs. Iterations run back to back, each rank starting its next when its optimizer step
// ends (and its last collective has); the mean is reported.

#include <cstddef>
#include <vector>

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/schedule/schedule.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/iteration_steps.hpp"
#include "algorithms/training/scaling_point.hpp"

namespace ddl {

// Every collective of an iteration at one GPU count: the steps each GPU follows under the plan's
// parallelism (algorithms/training/iteration_steps.hpp), and per collective kind and bucket the algorithm
// chosen and its schedule over the GPUs, built once for a point and shared by its memory check and its
// simulations.
struct IterationCollectives {
  IterationSteps steps;
  // Per schedule: kind-major over collectiveKindsOf(steps.parallelism), bucket-minor. Under ddp, schedule b
  // is bucket b's allreduce.
  BucketAlgorithms algorithms;
  std::vector<Schedule> schedules;
  int gpus = 0;

  std::size_t scheduleIndex(const PlannedCollective& collective) const;
  const Schedule& scheduleOf(const PlannedCollective& collective) const { return schedules[scheduleIndex(collective)]; }
  // The switches that reduce between the GPUs (CollectiveSpec::switches, one per node): 0, or the count of
  // every schedule that reduces in switches, whose participants follow the GPUs on the platform
  // (topologies/platform_with_switches.hpp); std::invalid_argument where two such schedules differ.
  int switches() const;
  int participants() const { return gpus + switches(); }
};
// ddp: each bucket's allreduce. InvalidArgument from the algorithm where its options do not fit a bucket;
// std::invalid_argument unless there is one algorithm per bucket.
IterationCollectives bucketAllreduces(const IterationPlan& plan, const BucketAlgorithms& algorithms, int gpus);
// One algorithm for every bucket.
IterationCollectives bucketAllreduces(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                      const AlgorithmOptions& options, int gpus);
BucketAlgorithms sameForEveryBucket(const IterationPlan& plan, const AlgorithmDefinition& algorithm, const AlgorithmOptions& options);
// What runs each kind of a sharded plan's collectives; hybrid's allreduce across nodes as well.
struct ShardedAlgorithms {
  const AlgorithmDefinition* reduceScatter = nullptr;
  const AlgorithmDefinition* allGather = nullptr;
  const AlgorithmDefinition* allreduce = nullptr;
};
// The algorithms of one name for each kind; InvalidArgument("algorithm", ...) where a kind has none of it.
ShardedAlgorithms shardedAlgorithmsNamed(std::string_view name);
// A sharded parallelism: each bucket's collectives by `algorithms`, with `options`, over the bucket padded to
// a multiple of the GPUs as FSDP and ZeRO pad their shards (the results still report the bucket's own bytes);
// under hybrid, within and across nodes of `ranksPerNode`. std::invalid_argument for ddp, or a plan the
// parallelism cannot follow (iterationSteps).
IterationCollectives shardedCollectives(const IterationPlan& plan, Parallelism parallelism, const ShardedAlgorithms& algorithms,
                                        const AlgorithmOptions& options, int gpus, int ranksPerNode = 0);
// The same with what runs each bucket's collective of each kind, the kinds in collectiveKindsOf's order (a
// tuning table's choice per bucket and kind); std::invalid_argument unless there is one per bucket and kind.
IterationCollectives shardedCollectives(const IterationPlan& plan, Parallelism parallelism,
                                        const std::vector<BucketAlgorithms>& perKind, int gpus, int ranksPerNode = 0);

// Of the schedules of each algorithm and kind, the one with the most elements, whose schedule has the most
// steps and talks between every pair the others do: one schedule index per algorithm and kind.
std::vector<std::size_t> largestScheduleOfEachAlgorithm(const IterationCollectives& collectives);

struct IterationSimulation {
  double iterationSeconds = 0;  // the mean of `iterations`
  int iterations = 1;
  // Per collective of the steps (under ddp, per bucket): from the first GPU starting it to the last one
  // finishing it, the mean over iterations.
  std::vector<CollectiveMeasurement> allreduces;
  // The step engine with BucketEvening::Allow: the largest relative change of a bucket's elements where it
  // evened buckets to simulate ranks that do the same thing once (sim/step/step_iteration.hpp); 0: none evened.
  double evenedBucketChange = 0;
};

// Work no collective outlasts: the contention of a collective (the overlap slowdown) is cancelled when it ends.
inline constexpr double kContentionSeconds = 1e6;

// A collective of `kind` over a buffer of `bytes` (nccl-tests' size: the whole buffer) on `gpus` GPUs that
// took `seconds`, with its algbw and busbw.
CollectiveMeasurement collectiveMeasurement(CollectiveKind kind, double bytes, double seconds, int gpus);
inline CollectiveMeasurement allreduceMeasurement(double bytes, double seconds, int gpus) {
  return collectiveMeasurement(CollectiveKind::Allreduce, bytes, seconds, gpus);
}

// What both engines record of `iterations` back to back, from `start`: each rank's end, and per iteration
// and collective (iteration-major) its first start and last end over the ranks.
struct IterationRecord {
  double start = 0;
  int iterations = 1;
  std::vector<double> end;
  std::vector<double> collectiveStart;
  std::vector<double> collectiveEnd;
};
IterationSimulation summarizeIterations(const IterationRecord& record, const IterationPlan& plan, const IterationSteps& steps);

}  // namespace ddl
