#pragma once
// Training iterations of every GPU on a simulated platform, following the IterationPlan: on each GPU a
// compute actor runs forward and backward as executions and hands each full bucket to a communication
// actor, which runs the bucket's allreduce (one after another, as one communication stream does); the
// optimizer step waits for the last. The slowest GPU's iteration is the iteration.
//
// With effects (algorithms/training/iteration_effects.hpp), each rank's compute is scaled by its GPU's
// factor and its draw of the iteration, overheads are slept on the host, and while a rank's collective runs
// an execution of priority s shares the rank's one compute core with its compute, which then runs 1/(1+s)
// as fast: only overlap costs. Iterations run back to back, each rank starting its next when its optimizer
// step ends; the mean is reported.

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/schedule/schedule.hpp"
#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/iteration_timeline.hpp"
#include "algorithms/training/scaling_point.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

struct IterationSimulation {
  double iterationSeconds = 0;  // the mean of `iterations`
  int iterations = 1;
  // Per bucket: from the first GPU starting its allreduce to the last one finishing it, the mean over iterations.
  std::vector<CollectiveMeasurement> allreduces;
  // The step engine with BucketEvening::Allow: the largest relative change of a bucket's elements where it
  // evened buckets to simulate ranks that do the same thing once (sim/step_iteration.hpp); 0: none evened.
  double evenedBucketChange = 0;
};

// Work no collective outlasts: the contention of a collective (the overlap slowdown) is cancelled when it ends.
inline constexpr double kContentionSeconds = 1e6;

BucketAlgorithms sameForEveryBucket(const IterationPlan& plan, const AlgorithmDefinition& algorithm, const AlgorithmOptions& options);

// Of the buckets each algorithm (by label) allreduces, the one with the most elements, whose schedule has
// the most steps and talks between every pair the others do: one bucket index per algorithm.
std::vector<std::size_t> largestBucketOfEachAlgorithm(const IterationPlan& plan, const BucketAlgorithms& algorithms);

// Each bucket's allreduce schedule over `gpus` GPUs, in bucket order: what both engines run.
std::vector<Schedule> bucketSchedules(const IterationPlan& plan, const BucketAlgorithms& algorithms, int gpus);

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

// Throws SimulationError if the simulation cannot run to its end. With `timeline`, every rank's compute
// phases and bucket allreduces of the first iteration are appended to it under `group`.
IterationSimulation simulateIteration(const IterationPlan& plan, const BucketAlgorithms& algorithms,
                                      const PlatformDescription& platform, const IterationEffects& effects = {},
                                      IterationTimeline* timeline = nullptr, const std::string& group = "");
// One algorithm for every bucket.
inline IterationSimulation simulateIteration(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                             const AlgorithmOptions& options, const PlatformDescription& platform,
                                             const IterationEffects& effects = {}, IterationTimeline* timeline = nullptr,
                                             const std::string& group = "") {
  return ddl::simulateIteration(plan, sameForEveryBucket(plan, algorithm, options), platform, effects, timeline, group);
}

}  // namespace ddl
