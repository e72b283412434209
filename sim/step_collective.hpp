#pragma once
// simulateCollective on the step engine: the same runs, the same rules, the same equations, without a
// SimGrid actor per rank.

#include "sim/collective_simulation.hpp"

namespace ddl::step {

CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs = 1);

}  // namespace ddl::step
