#include "sim/step/step_engine.hpp"

#include "sim/step/step_collective.hpp"
#include "sim/step/step_iteration.hpp"

namespace ddl {

CollectiveTiming StepEngine::collective(const Schedule& schedule, const PlatformDescription& platform, int runs) const {
  return step::simulateCollective(schedule, platform, runs);
}

IterationSimulation StepEngine::iteration(const IterationPlan& plan, const IterationCollectives& buckets,
                                          const PlatformDescription& platform, const IterationEffects& effects,
                                          IterationTimeline* timeline, const std::string& group) const {
  return step::simulateIteration(plan, buckets, platform, effects, timeline, group, step::RankSymmetryUse::Exploit,
                                 step::eveningFor(buckets));
}

int StepEngine::ranksHeld(const Schedule& schedule, const PlatformDescription& platform) const {
  return step::simulatedRanks(schedule, platform);
}

int StepEngine::ranksHeld(const IterationPlan& /*plan*/, const IterationCollectives& buckets, const PlatformDescription& platform,
                          const IterationEffects& effects, bool withTimeline) const {
  if (withTimeline) return platform.hosts();
  return step::simulatedRanks(buckets, platform, effects, step::eveningFor(buckets));
}

}  // namespace ddl
