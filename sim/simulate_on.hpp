#pragma once
// A collective or an iteration simulated on the engine chosen for it (sim/engine_choice.hpp).

#include "sim/collective_simulation.hpp"
#include "sim/engine_choice.hpp"
#include "sim/iteration_simulation.hpp"
#include "sim/step_collective.hpp"
#include "sim/step_iteration.hpp"

namespace ddl {

inline CollectiveTiming simulateCollectiveOn(SimulationEngine engine, const Schedule& schedule, const PlatformDescription& platform,
                                             int runs = 1) {
  return engine == SimulationEngine::Step ? step::simulateCollective(schedule, platform, runs)
                                          : simulateCollective(schedule, platform, runs);
}

inline IterationSimulation simulateIterationOn(SimulationEngine engine, const IterationPlan& plan, const BucketAlgorithms& algorithms,
                                               const PlatformDescription& platform, const IterationEffects& effects = {},
                                               IterationTimeline* timeline = nullptr, const std::string& group = "") {
  // The step engine evens buckets only where simulating them as given would not fit (step::eveningFor).
  return engine == SimulationEngine::Step
             ? ddl::step::simulateIteration(plan, algorithms, platform, effects, timeline, group, step::RankSymmetryUse::Exploit,
                                            step::eveningFor(plan, algorithms, platform.hosts()))
             : ddl::simulateIteration(plan, algorithms, platform, effects, timeline, group);
}

// One algorithm for every bucket.
inline IterationSimulation simulateIterationOn(SimulationEngine engine, const IterationPlan& plan,
                                               const AlgorithmDefinition& algorithm, const AlgorithmOptions& options,
                                               const PlatformDescription& platform, const IterationEffects& effects = {},
                                               IterationTimeline* timeline = nullptr, const std::string& group = "") {
  return simulateIterationOn(engine, plan, sameForEveryBucket(plan, algorithm, options), platform, effects, timeline, group);
}

}  // namespace ddl
