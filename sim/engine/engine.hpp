#pragma once
// What a simulation engine does, so that the commands and the sweep run a collective or a training
// iteration without knowing which engine runs it. Two implement it (sim/registered_engines.hpp):
//
// - "message", SimGrid's (sim/simgrid/), the reference: an actor per rank and a SimGrid communication per
//   message;
// - "step" (sim/step/): the same per-rank rules over the same sharing equations in one event loop, without
//   actors, simulating ranks that do the same thing once.
//
// Both agree to 1e-4 on every algorithm and platform the tests try (tests/sim/step_engine_test.cpp,
// engine_agreement_test.cpp). Both throw SimulationError where a simulation cannot run to its end (ranks
// waiting forever, a failure inside), and never abort.

#include <string>
#include <string_view>

#include "algorithms/schedule/schedule.hpp"
#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/iteration_timeline.hpp"
#include "sim/engine/collective_timing.hpp"
#include "sim/engine/iteration_simulation.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

// What an engine's world holds besides the programs (sim/sweep/simulation_memory.hpp): SimGrid's, an actor
// per rank on a stack of its own and a full zone's N x N routing table; the step engine's, each rank's
// state and the routes of the streams it uses.
enum class EngineWorld { SimGridActors, StepEvents };

class Engine {
 public:
  virtual ~Engine() = default;

  // Its name on the command line (--engine) and in results (run.engine), and what it is, for --help.
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual EngineWorld world() const = 0;

  // Every rank runs `schedule` `runs` times back to back after one common start.
  virtual CollectiveTiming collective(const Schedule& schedule, const PlatformDescription& platform, int runs) const = 0;

  // Training iterations of every GPU following `plan`, each bucket allreduced as `buckets` says
  // (sim/engine/iteration_simulation.hpp). With `timeline`, every rank's compute phases and bucket
  // allreduces of the first iteration are appended to it under `group`.
  virtual IterationSimulation iteration(const IterationPlan& plan, const IterationCollectives& buckets,
                                        const PlatformDescription& platform, const IterationEffects& effects,
                                        IterationTimeline* timeline, const std::string& group) const = 0;

  // The ranks whose programs it holds at once for the same arguments: what its memory grows with
  // (sim/sweep/simulation_memory.hpp).
  virtual int ranksHeld(const Schedule& schedule, const PlatformDescription& platform) const = 0;
  virtual int ranksHeld(const IterationPlan& plan, const IterationCollectives& buckets, const PlatformDescription& platform,
                        const IterationEffects& effects, bool withTimeline) const = 0;

  // The common calls: one run; an iteration without a timeline.
  CollectiveTiming collective(const Schedule& schedule, const PlatformDescription& platform) const {
    return collective(schedule, platform, 1);
  }
  IterationSimulation iteration(const IterationPlan& plan, const IterationCollectives& buckets, const PlatformDescription& platform,
                                const IterationEffects& effects = {}) const {
    return iteration(plan, buckets, platform, effects, nullptr, "");
  }
};

}  // namespace ddl
