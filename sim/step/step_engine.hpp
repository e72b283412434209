#pragma once
// The step engine behind the Engine interface: "step", exploiting rank symmetry, and evening buckets only
// where simulating them as given would not fit (sim/step/step_iteration.hpp).

#include "sim/engine/engine.hpp"

namespace ddl {

class StepEngine final : public Engine {
 public:
  std::string_view name() const override { return "step"; }
  EngineWorld world() const override { return EngineWorld::StepEvents; }
  std::string_view description() const override { return "the same rules and sharing in one event loop, faster"; }
  CollectiveTiming collective(const Schedule& schedule, const PlatformDescription& platform, int runs) const override;
  IterationSimulation iteration(const IterationPlan& plan, const IterationCollectives& buckets, const PlatformDescription& platform,
                                const IterationEffects& effects, IterationTimeline* timeline,
                                const std::string& group) const override;
  // One period of the ranks where they do the same thing (sim/step/step_symmetry.hpp); every rank where they
  // do not, or where a timeline is asked for.
  int ranksHeld(const Schedule& schedule, const PlatformDescription& platform) const override;
  int ranksHeld(const IterationPlan& plan, const IterationCollectives& buckets, const PlatformDescription& platform,
                const IterationEffects& effects, bool withTimeline) const override;
  using Engine::collective;
  using Engine::iteration;
};

}  // namespace ddl
