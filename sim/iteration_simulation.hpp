#pragma once
// One training iteration of every GPU on a simulated platform, following the IterationPlan: on each GPU a
// compute actor runs forward and backward as executions and hands each full bucket to a communication
// actor, which runs the bucket's allreduce (one after another, as one communication stream does); the
// optimizer step waits for the last. The slowest GPU's iteration is the iteration.

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/iteration_timeline.hpp"
#include "algorithms/training/scaling_point.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

struct IterationSimulation {
  double iterationSeconds = 0;
  // Per bucket: from the first GPU starting its allreduce to the last one finishing it.
  std::vector<CollectiveMeasurement> allreduces;
};

// Throws SimulationError if the simulation cannot run to its end. With `timeline`, every rank's compute
// phases and bucket allreduces are appended to it under `group`.
IterationSimulation simulateIteration(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                      const AlgorithmOptions& options, const PlatformDescription& platform,
                                      IterationTimeline* timeline = nullptr, const std::string& group = "");

}  // namespace ddl
