#pragma once
// Training iterations on SimGrid (sim/engine/iteration_simulation.hpp says what is simulated): on each GPU
// a compute actor runs the phases of the iteration's steps as executions and releases a semaphore as each
// ends, and a communication actor runs the steps' collectives, releasing another as each ends; the overlap
// slowdown is an execution of priority s on the rank's compute host while a collective runs.

#include <string>

#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/iteration_timeline.hpp"
#include "sim/engine/iteration_simulation.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

// Throws SimulationError if the simulation cannot run to its end. With `timeline`, every rank's compute
// phases and collectives of the first iteration are appended to it under `group`.
IterationSimulation simulateIteration(const IterationPlan& plan, const IterationCollectives& collectives,
                                      const PlatformDescription& platform, const IterationEffects& effects = {},
                                      IterationTimeline* timeline = nullptr, const std::string& group = "");
// One algorithm for every bucket.
inline IterationSimulation simulateIteration(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                             const AlgorithmOptions& options, const PlatformDescription& platform,
                                             const IterationEffects& effects = {}, IterationTimeline* timeline = nullptr,
                                             const std::string& group = "") {
  return simulateIteration(plan, bucketAllreduces(plan, algorithm, options, platform.hosts()), platform, effects, timeline, group);
}

}  // namespace ddl
