#pragma once
// What both engines say of a simulation that ran out of events with ranks still waiting, so that a
// deadlocking schedule reads alike on both.

#include <string>
#include <vector>

#include "common/rank.hpp"
#include "sim/engine/simulation_error.hpp"

namespace ddl {

// Throws SimulationError naming (the first eight of) `waiting`, if any rank waits.
inline void throwIfStuck(const std::vector<Rank>& waiting) {
  if (waiting.empty()) return;
  std::string listed;
  for (std::size_t i = 0; i < waiting.size() && i < 8; ++i) listed += (i ? ", " : "") + std::to_string(waiting[i]);
  throw SimulationError("simulation stopped with " + std::to_string(waiting.size()) + " ranks waiting forever (ranks " +
                        listed + (waiting.size() > 8 ? ", ..." : "") + "): the schedule deadlocks on this platform");
}

}  // namespace ddl
