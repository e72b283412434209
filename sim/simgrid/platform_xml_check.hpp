#pragma once
// The read-back of `ddlsim platform --xml`: the exported file loaded into SimGrid, as a SimGrid user loads it,
// and its routes compared with the cluster's, so that a file SimGrid would route differently is never put out.

#include <optional>
#include <string>
#include <vector>

#include "topologies/cluster.hpp"

namespace ddl {

// The links of `route` as SimGrid names the ones it crosses: a split-duplex link as NAME_UP or NAME_DOWN.
std::vector<std::string> simGridLinkNames(const Cluster& cluster, const std::vector<RouteHop>& route);

// Loads the platform file at `path` into a SimGrid engine of this process (which must have none yet) and
// compares it with `cluster`: every GPU is a host; between the first GPU and every other, and the last and
// every other, both ways (every pair where there are at most 64 GPUs), and from each of those to its shared
// memory, SimGrid's route crosses the cluster's links in order and direction (the leaf crossbars aside: the
// file's stand-in for a switch, of no latency and no limit), each link with its bandwidth and latency.
// Nothing where they agree; else the first difference, in words.
std::optional<std::string> simGridXmlMismatch(const std::string& path, const Cluster& cluster);

}  // namespace ddl
