#pragma once
// Every point of a scenario (GPU count x algorithm) simulated on SimGrid.

#include <functional>
#include <memory>
#include <optional>
#include <vector>

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
// sweep is estimated to need, bytes. With `stepEngineWithoutTrace`, a point holds the programs of the ranks
// it simulates: one period of them where ranks do the same thing (sim/step_iteration.hpp), under the
// central effects and, with `effectRange`, under each end's too (an end with jitter simulates every rank).
double requireScenarioMemory(const Scenario& scenario, double computeScale = 1, bool stepEngineWithoutTrace = false,
                             bool effectRange = false);

// `jobs`, or fewer (at least 1) where that many simulations of `bytesPerSimulation` each would not fit
// the memory this machine has available at once.
int jobsThatFit(int jobs, double bytesPerSimulation);

// A scenario's sweep as the simulations it takes (each point's iteration, the same without latency, each end
// of a range; a baseline once per configuration), and its results from their values. The simulations are
// independent and each gives the same values wherever it runs, in a fresh process: a sweep can be split
// over processes and machines (`mpirun -np K ddlsim SCENARIO`, sim/mpi_sweep_main.cpp) and its values
// brought together to give the same results, byte for byte, as one process would.
class ScenarioSweep {
 public:
  // InvalidArgument naming --range if `effectRange` and the scenario gives no effect as sourced. The
  // scenario must outlive the sweep.
  ScenarioSweep(const Scenario& scenario, double computeScale, bool effectRange, SimulationEngine engine);
  ~ScenarioSweep();
  ScenarioSweep(const ScenarioSweep&) = delete;
  ScenarioSweep& operator=(const ScenarioSweep&) = delete;

  std::size_t simulations() const;
  // Runs simulation `simulation` in this process (simulateSweep runs each in a fresh one).
  std::vector<double> simulate(std::size_t simulation) const;
  std::size_t points() const;
  // The point simulation `simulation` belongs to, if all of that point's values are in (for progress).
  std::optional<ScalingPoint> pointIfComplete(std::size_t simulation, const std::vector<std::vector<double>>& values) const;
  // The sweep's results from every simulation's values, in simulation order.
  ScalingResults results(const std::vector<std::vector<double>>& values) const;

 private:
  struct Listing;
  const Scenario& scenario_;
  IterationPlan plan_;
  double computeScale_;
  bool effectRange_;
  SimulationEngine engine_;
  std::vector<IterationEffects> effects_;
  std::unique_ptr<Listing> listing_;
};

// The values of `simulations` (indices into the sweep), each in a fresh process, `jobs` at a time, at their
// index of a vector of every simulation's (the others left empty); `progress` as each point completes.
std::vector<std::vector<double>> simulateSweep(const ScenarioSweep& sweep, const std::vector<std::size_t>& simulations,
                                               int jobs, const SweepProgress& progress = {});

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
