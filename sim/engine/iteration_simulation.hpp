#pragma once
// A training iteration as both engines simulate it (sim/engine/engine.hpp), and what they report of it.
//
// Every GPU follows the IterationPlan: its compute runs forward and backward and hands each full bucket to
// its communication, which runs the bucket's allreduce (one after another, as one communication stream
// does); the optimizer step waits for the last. The slowest GPU's iteration is the iteration.
//
// With effects (algorithms/training/iteration_effects.hpp), each rank's compute is scaled by its GPU's
// factor and its draw of the iteration, overheads are slept on the host, and while a rank's collective runs
// work of priority s shares the rank's one compute core with its compute, which then runs 1/(1+s) as fast:
// only overlap costs. Iterations run back to back, each rank starting its next when its optimizer step
// ends; the mean is reported.

#include <cstddef>
#include <vector>

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/schedule/schedule.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/scaling_point.hpp"

namespace ddl {

// Each bucket's allreduce at one GPU count: the algorithm chosen for it and its schedule over the GPUs,
// built once for a point and shared by its memory check and its simulations.
struct BucketAllreduces {
  BucketAlgorithms algorithms;
  std::vector<Schedule> schedules;  // in bucket order
  int gpus = 0;
};
// InvalidArgument from the algorithm where its options do not fit a bucket; std::invalid_argument unless
// there is one algorithm per bucket.
BucketAllreduces bucketAllreduces(const IterationPlan& plan, const BucketAlgorithms& algorithms, int gpus);
// One algorithm for every bucket.
BucketAllreduces bucketAllreduces(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                  const AlgorithmOptions& options, int gpus);
BucketAlgorithms sameForEveryBucket(const IterationPlan& plan, const AlgorithmDefinition& algorithm, const AlgorithmOptions& options);

// Of the buckets each algorithm (by label) allreduces, the one with the most elements, whose schedule has
// the most steps and talks between every pair the others do: one bucket index per algorithm.
std::vector<std::size_t> largestBucketOfEachAlgorithm(const IterationPlan& plan, const BucketAlgorithms& algorithms);

struct IterationSimulation {
  double iterationSeconds = 0;  // the mean of `iterations`
  int iterations = 1;
  // Per bucket: from the first GPU starting its allreduce to the last one finishing it, the mean over iterations.
  std::vector<CollectiveMeasurement> allreduces;
  // The step engine with BucketEvening::Allow: the largest relative change of a bucket's elements where it
  // evened buckets to simulate ranks that do the same thing once (sim/step/step_iteration.hpp); 0: none evened.
  double evenedBucketChange = 0;
};

// Work no collective outlasts: the contention of a collective (the overlap slowdown) is cancelled when it ends.
inline constexpr double kContentionSeconds = 1e6;

// An allreduce of `bytes` over `gpus` GPUs that took `seconds`, with its algbw and busbw.
CollectiveMeasurement allreduceMeasurement(double bytes, double seconds, int gpus);

// What both engines record of `iterations` back to back, from `start`: each rank's end, and per iteration
// and bucket (iteration-major) the first start and the last end of its allreduce over the ranks.
struct IterationRecord {
  double start = 0;
  int iterations = 1;
  std::vector<double> end;
  std::vector<double> bucketStart;
  std::vector<double> bucketEnd;
};
IterationSimulation summarizeIterations(const IterationRecord& record, const IterationPlan& plan, int gpus);

}  // namespace ddl
