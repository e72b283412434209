#pragma once
// The grid of ranks a cluster suggests: what DDL's multi-ring takes as its dims ("dims": "topology" in a
// scenario, ddl's candidate grid in `ddlsim tune`).

#include <vector>

#include "topologies/topology.hpp"

namespace ddl {

// For `gpus` GPUs: GPUs per node, nodes per leaf, leaves, without sizes of 1; empty if the GPUs do not fill
// whole nodes and leaves that way.
std::vector<int> topologyGrid(const Topology& topology, int gpus);

}  // namespace ddl
