#pragma once
// The work of carrying messages on the machine every rank computes on (an emulated cluster: its TCP stacks
// and its delay bridge run on the cores the ranks compute on), as both engines charge it: beside each
// message between two nodes, an execution of bytes x secondsPerByte on that machine, at most secondsPerSecond
// at a time (it keeps pace with the route's narrowest link: the stacks work on frames as they flow), with a
// sharing weight far above compute's, since the kernel and a real-time bridge run before the ranks. The
// message's sender is done when both the message and its work are; its receiver when the message is.

#include <algorithm>

#include "sim/engine/platform_constants.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

// Far above compute's 1 and the overlap contention's few: the work takes what it needs first.
inline constexpr double kNetworkWorkWeight = 1e6;

struct NetworkWork {
  double secondsPerByte = 0;    // of one rank's compute; 0: carrying is free
  double secondsPerSecond = 0;  // the most it runs at
};

inline NetworkWork networkWorkOf(const PlatformDescription& description, Rank from, Rank to) {
  // The work runs on the machine every rank computes on: without one, there is nowhere to charge it.
  const double perByte = description.sharedComputeThroughput() ? description.networkWorkSecondsPerByte(from, to) : 0;
  if (perByte <= 0) return {};
  double narrowest = kUnlimitedBandwidth;
  for (const RouteHop& hop : description.route(from, to))
    narrowest = std::min(narrowest, simulatedBandwidth(description.link(hop.link).bandwidthBps));
  return {perByte, perByte * narrowest};
}

}  // namespace ddl
