#pragma once
// One collective on SimGrid, an actor per rank, every rank starting at once (sim/engine/collective_timing.hpp
// says what is timed): the reference the step engine is checked against, and the check that the SimGrid
// backend agrees with the α-β-γ closed forms on a platform without contention.

#include "algorithms/schedule/schedule.hpp"
#include "sim/engine/collective_timing.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

// Every rank runs `schedule` `runs` times back to back. Throws SimulationError if the simulation cannot run
// to its end.
CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs = 1);

}  // namespace ddl
