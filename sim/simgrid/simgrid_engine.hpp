#pragma once
// SimGrid's engine behind the Engine interface: "message", the reference.

#include "sim/engine/engine.hpp"

namespace ddl {

class SimGridEngine final : public Engine {
 public:
  std::string_view name() const override { return "message"; }
  EngineWorld world() const override { return EngineWorld::SimGridActors; }
  std::string_view description() const override { return "SimGrid: an actor per rank, the reference"; }
  CollectiveTiming collective(const Schedule& schedule, const PlatformDescription& platform, int runs) const override;
  IterationSimulation iteration(const IterationPlan& plan, const IterationCollectives& buckets, const PlatformDescription& platform,
                                const IterationEffects& effects, IterationTimeline* timeline,
                                const std::string& group) const override;
  // Every rank, always: an actor each.
  int ranksHeld(const Schedule& schedule, const PlatformDescription& platform) const override;
  int ranksHeld(const IterationPlan& plan, const IterationCollectives& buckets, const PlatformDescription& platform,
                const IterationEffects& effects, bool withTimeline) const override;
  using Engine::collective;
  using Engine::iteration;
};

}  // namespace ddl
