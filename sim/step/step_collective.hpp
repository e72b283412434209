#pragma once
// simulateCollective on the step engine: the same runs, the same rules, the same equations, without a
// SimGrid actor per rank.

#include "algorithms/schedule/schedule.hpp"
#include "sim/engine/collective_timing.hpp"
#include "topologies/platform_description.hpp"

namespace ddl::step {

// Whether ranks that do the same thing are simulated once (sim/step/step_symmetry.hpp): the same answer, and
// what makes a flat ring of thousands of ranks cheap; Ignore simulates every rank, as a reference.
enum class RankSymmetryUse { Exploit, Ignore };

CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs = 1,
                                    RankSymmetryUse symmetry = RankSymmetryUse::Exploit);

// The ranks whose programs simulateCollective holds (Exploit): one period of them, or all.
int simulatedRanks(const Schedule& schedule, const PlatformDescription& platform);

}  // namespace ddl::step
