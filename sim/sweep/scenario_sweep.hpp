#pragma once
// Every point of a scenario (GPU count x algorithm) as the simulations it takes, on one engine.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "algorithms/training/iteration_timeline.hpp"
#include "algorithms/training/scaling_point.hpp"
#include "scenarios/scenario.hpp"
#include "sim/engine/engine.hpp"

namespace ddl {

// Called as each point's simulations end, in the order they end, with a count from 0, the number of points,
// and the point (its baseline not yet set).
using SweepProgress = std::function<void(std::size_t, std::size_t, const ScalingPoint&)>;

struct SweepSettings {
  // Compute times are multiplied by this, to predict what `ddlrun train --compute-scale` measures.
  double computeScale = 1;
  // Monte Carlo samples over the priors of the scenario's sourced effects and over the seed of its per-rank
  // draws (sampleEffects): each point and baseline simulated once more per sample, and the percentiles of
  // its iteration time, images/s and efficiency reported (ScalingPoint::interval). 0: none.
  int samples = 0;
  // What each sample draws: by default every sourced effect, the seed of the per-rank draws and the job's
  // time factor. ddlsim --sensitivity varies one input alone, the rest at their central values: `onlyEffect`
  // (a sourced one), with `onlySeeds` the seed, or with `onlyJob` the job's time factor.
  const EffectDeclaration* onlyEffect = nullptr;
  bool onlySeeds = false;
  bool onlyJob = false;
};

// `jobs`, or fewer (at least 1) where that many simulations of `bytesPerSimulation` each would not fit
// the memory this machine has available at once.
int jobsThatFit(int jobs, double bytesPerSimulation);

// A scenario's sweep as the simulations it takes (each point's iteration, the same without latency, one per
// Monte Carlo sample; a baseline once per configuration), and its results from their values. The iteration plan
// and every point's bucket allreduces are built once, when the sweep is made: the memory check and every
// simulation of the point use them (a simulation's fresh process inherits them). The simulations are
// independent and each gives the same values wherever it runs, in a fresh process: a sweep can be split
// over processes and machines (`mpirun -np K ddlsim SCENARIO`, sim/sweep/mpi_sweep_main.cpp) and its values
// brought together to give the same results, byte for byte, as one process would.
class ScenarioSweep {
 public:
  // InvalidArgument naming the scenario's entry where an algorithm's options do not fit a bucket (1-byte
  // chunks of a 25 MB bucket), and naming --samples if `settings.samples` and nothing in the scenario is
  // uncertain (no sourced effect, no per-rank draw). The scenario and the engine must outlive the sweep.
  ScenarioSweep(const Scenario& scenario, const Engine& engine, SweepSettings settings = {});
  ~ScenarioSweep();
  ScenarioSweep(const ScenarioSweep&) = delete;
  ScenarioSweep& operator=(const ScenarioSweep&) = delete;

  const IterationPlan& plan() const { return plan_; }

  // Before any simulation: InvalidArgument naming the scenario's $.gpus[i] (or $.baseline_gpus) if one
  // simulation would need more memory than this machine has free (sim/sweep/simulation_memory.hpp).
  // Returns the most one simulation is estimated to need, bytes: it holds the programs of the ranks the
  // engine simulates (Engine::ranksHeld), under every effects set it runs.
  double requireMemory() const;

  std::size_t simulations() const;
  // What the sweep is, simulation by simulation ("ring at 8 GPUs: iteration; ..."), with the scenario, the
  // engine and the settings: two sweeps whose values can be brought together have the same.
  std::string signature() const;
  // Runs simulation `simulation` in this process (simulateSweep runs each in a fresh one).
  std::vector<double> simulate(std::size_t simulation) const;
  std::size_t points() const;
  // The point simulation `simulation` belongs to, if all of that point's values are in (for progress).
  std::optional<ScalingPoint> pointIfComplete(std::size_t simulation, const std::vector<std::vector<double>>& values) const;
  // The sweep's results from every simulation's values, in simulation order; run.engine names the engine.
  ScalingResults results(const std::vector<std::vector<double>>& values) const;

  // The point of scenario.algorithms[algorithm] at `gpus` GPUs, simulated with every rank's timeline (its
  // first iteration), in this process: in ddlsim, whose sweep runs every simulation in a child, the first
  // engine the process runs, so from the clock each point's simulation starts at, with its draws.
  IterationTimeline trace(std::size_t algorithm, int gpus) const;
  // Before any simulation: InvalidArgument naming --trace-gpus if that one would not fit this machine's
  // memory (with a timeline, an engine simulates every rank).
  void requireTraceMemory(std::size_t algorithm, int gpus) const;

 private:
  struct Listing;
  const Scenario& scenario_;
  const Engine& engine_;
  SweepSettings settings_;
  IterationPlan plan_;
  std::unique_ptr<Listing> listing_;
};

// The values of `simulations` (indices into the sweep), each in a fresh process, `jobs` at a time, at their
// index of a vector of every simulation's (the others left empty); `progress` as each point completes.
std::vector<std::vector<double>> simulateSweep(const ScenarioSweep& sweep, const std::vector<std::size_t>& simulations,
                                               int jobs, const SweepProgress& progress = {});

// The whole sweep, `jobs` simulations at a time, each in a process of its own (sim/sweep/fresh_process.hpp):
// the results are the same bytes whatever `jobs` is; progress comes in the order points finish. Throws
// SimulationError if a point cannot be simulated to its end, InvalidArgument as the sweep's constructor.
ScalingResults simulateScenario(const Scenario& scenario, const Engine& engine, SweepSettings settings = {}, int jobs = 1,
                                const SweepProgress& progress = {});

}  // namespace ddl
