#pragma once
// One collective on a simulated platform, every rank starting at once: `ddlsim collective`, and the check
// that the SimGrid backend agrees with the α-β-γ closed forms on a platform without contention.

#include "algorithms/schedule/schedule.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

struct CollectiveTiming {
  double seconds = 0;  // from the common start to the last rank's end
  double bytes = 0;    // the buffer, per rank
  double algbwBps() const { return seconds > 0 ? bytes / seconds : 0; }
};

// nccl-tests' bus bandwidth factor: what each rank's links must carry relative to the algorithm bandwidth
// (allreduce 2(n-1)/n, reduce-scatter and all-gather (n-1)/n).
double busBandwidthFactor(CollectiveKind kind, int ranks);

// Throws SimulationError if the simulation cannot run to its end.
CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform);

}  // namespace ddl
