#pragma once
// What either engine reports of one collective (sim/engine/engine.hpp): every rank starting at once, and,
// as `ddlrun bench` and nccl-tests time it, possibly several runs back to back after that one start: a rank
// that finishes a run early starts the next, and its first messages then contend with the last messages of
// ranks still finishing the previous run. An isolated run does not show that.

#include <vector>

namespace ddl {

struct CollectiveTiming {
  double seconds = 0;  // per run: the slowest rank's time from the common start to its end, over the runs
  double bytes = 0;    // the buffer, per rank
  std::vector<double> rankSeconds;  // per rank: from the common start to its end of the last run
  double algbwBps() const { return seconds > 0 ? bytes / seconds : 0; }
};

}  // namespace ddl
