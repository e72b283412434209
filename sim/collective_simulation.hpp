#pragma once
// One collective on a simulated platform, every rank starting at once: `ddlsim collective`, and the check
// that the SimGrid backend agrees with the α-β-γ closed forms on a platform without contention.
// Like `ddlrun bench` and nccl-tests, it can time several runs back to back after one common start: a rank
// that finishes a run early starts the next, and its first messages then contend with the last messages
// of ranks still finishing the previous run. An isolated run does not show that.

#include <vector>

#include "algorithms/schedule/schedule.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

struct CollectiveTiming {
  double seconds = 0;  // per run: the slowest rank's time from the common start to its end, over the runs
  double bytes = 0;    // the buffer, per rank
  std::vector<double> rankSeconds;  // per rank: from the common start to its end of the last run
  double algbwBps() const { return seconds > 0 ? bytes / seconds : 0; }
};

// Every rank runs `schedule` `runs` times back to back. Throws SimulationError if the simulation cannot run
// to its end.
CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs = 1);

}  // namespace ddl
