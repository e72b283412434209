#pragma once
// Every point of a scenario (GPU count x algorithm) simulated on SimGrid.

#include <functional>

#include "sim/engine_choice.hpp"
#include "algorithms/training/iteration_timeline.hpp"
#include "algorithms/training/scaling_point.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

// Called as each point's simulations end, in the order they end, with a count from 0, the number of points,
// and the point (its baseline not yet set).
using SweepProgress = std::function<void(std::size_t, std::size_t, const ScalingPoint&)>;

// Before any point is simulated: InvalidArgument naming the scenario's $.gpus[i] if one point would need
// more memory than this machine has free (simulation_memory.hpp). Returns the most one simulation of the
// sweep is estimated to need, bytes.
double requireScenarioMemory(const Scenario& scenario, double computeScale = 1);

// `jobs`, or fewer (at least 1) where that many simulations of `bytesPerSimulation` each would not fit
// the memory this machine has available at once.
int jobsThatFit(int jobs, double bytesPerSimulation);

// Throws SimulationError if a point cannot be simulated to its end.
// Compute times are multiplied by `computeScale`, to predict what `ddlrun train --compute-scale` measures.
// With `effectRange`, each point (and baseline) is simulated again at the pessimistic and the optimistic
// end of every sourced effect (Scenario::effectsAt), and its efficiency range is reported; InvalidArgument
// naming --range if the scenario gives no effect as sourced.
// The simulations run `jobs` at a time, each in a process of its own (sim/fresh_process.hpp): the results
// are the same bytes whatever `jobs` is; progress comes in the order points finish.
// `engine` simulates every iteration (sim/engine_choice.hpp), and run.engine says which.
ScalingResults simulateScenario(const Scenario& scenario, const SweepProgress& progress = {}, double computeScale = 1,
                                bool effectRange = false, int jobs = 1, SimulationEngine engine = SimulationEngine::Step);

// The point of scenario.algorithms[algorithm] at `gpus` GPUs, simulated again with every rank's timeline
// (its first iteration). It runs in this process: in ddlsim, whose sweep runs every simulation in a child,
// the first engine the process runs, so from the clock each point's simulation starts at, with its draws.
IterationTimeline traceScenarioPoint(const Scenario& scenario, std::size_t algorithm, int gpus, double computeScale = 1,
                                     SimulationEngine engine = SimulationEngine::Step);

}  // namespace ddl
