#pragma once
// The platform an iteration's collectives run on: the cluster of its GPUs, and after them a switch per node
// where a schedule reduces in switches (nccl-nvls, nccl-nvls-tree: topologies/platform_with_switches.hpp).

#include <optional>

#include "sim/engine/iteration_simulation.hpp"
#include "topologies/cluster.hpp"
#include "topologies/platform_with_switches.hpp"

namespace ddl {

class IterationPlatform {
 public:
  IterationPlatform(const Topology& topology, Placement placement, const IterationCollectives& collectives)
      : cluster_(topology, collectives.gpus, placement) {
    if (collectives.switches() > 0) switches_.emplace(cluster_);
  }
  IterationPlatform(const IterationPlatform&) = delete;  // the switches refer to the cluster
  IterationPlatform& operator=(const IterationPlatform&) = delete;

  const Cluster& cluster() const { return cluster_; }
  const PlatformDescription& platform() const {
    return switches_ ? static_cast<const PlatformDescription&>(*switches_) : cluster_;
  }
  int switches() const { return switches_ ? cluster_.nodes() : 0; }

 private:
  Cluster cluster_;
  std::optional<PlatformWithSwitches> switches_;
};

}  // namespace ddl
