#include "sim/simgrid/simgrid_engine.hpp"

#include "sim/simgrid/collective_on_simgrid.hpp"
#include "sim/simgrid/iteration_on_simgrid.hpp"

namespace ddl {

CollectiveTiming SimGridEngine::collective(const Schedule& schedule, const PlatformDescription& platform, int runs) const {
  return simulateCollective(schedule, platform, runs);
}

IterationSimulation SimGridEngine::iteration(const IterationPlan& plan, const IterationCollectives& buckets,
                                             const PlatformDescription& platform, const IterationEffects& effects,
                                             IterationTimeline* timeline, const std::string& group) const {
  return simulateIteration(plan, buckets, platform, effects, timeline, group);
}

int SimGridEngine::ranksHeld(const Schedule& schedule, const PlatformDescription&) const { return schedule.participants(); }

int SimGridEngine::ranksHeld(const IterationPlan&, const IterationCollectives&, const PlatformDescription& platform,
                             const IterationEffects&, bool) const {
  return platform.hosts();
}

}  // namespace ddl
