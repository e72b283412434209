#pragma once
// Where a schedule reduces in switches (nccl-nvls, nccl-nvls-tree: CollectiveSpec::switches), the platform it
// runs on is the cluster with a switch per node after the GPUs (topologies/platform_with_switches.hpp);
// elsewhere the cluster itself.

#include <optional>

#include "algorithms/schedule/schedule.hpp"
#include "sim/engine/iteration_simulation.hpp"
#include "topologies/cluster.hpp"
#include "topologies/platform_with_switches.hpp"

namespace ddl {

// What one schedule runs on, over `cluster` (which must outlive it).
class CollectivePlatform {
 public:
  CollectivePlatform(const Cluster& cluster, const Schedule& schedule) : cluster_(cluster) {
    if (schedule.spec().switches > 0) switches_.emplace(cluster);
  }
  CollectivePlatform(const CollectivePlatform&) = delete;  // the switches refer to the cluster
  CollectivePlatform& operator=(const CollectivePlatform&) = delete;

  const PlatformDescription& platform() const {
    return switches_ ? static_cast<const PlatformDescription&>(*switches_) : cluster_;
  }

 private:
  const Cluster& cluster_;
  std::optional<PlatformWithSwitches> switches_;
};

// What an iteration's collectives run on: the cluster of its GPUs, with switches where a bucket reduces in them.
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
