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

// `cluster` as participants that number `switches` beyond its GPUs run on it: with a switch per node after
// the GPUs where there are any, else the cluster itself. `cluster` must outlive it.
class SwitchPlacement {
 public:
  SwitchPlacement(const Cluster& cluster, int switches) : cluster_(cluster) {
    if (switches > 0) switches_.emplace(cluster);
  }
  SwitchPlacement(const SwitchPlacement&) = delete;  // the switches refer to the cluster
  SwitchPlacement& operator=(const SwitchPlacement&) = delete;

  const PlatformDescription& platform() const {
    return switches_ ? static_cast<const PlatformDescription&>(*switches_) : cluster_;
  }
  int switches() const { return switches_ ? cluster_.nodes() : 0; }

 private:
  const Cluster& cluster_;
  std::optional<PlatformWithSwitches> switches_;
};

// What one schedule runs on, over `cluster`.
class CollectivePlatform : public SwitchPlacement {
 public:
  CollectivePlatform(const Cluster& cluster, const Schedule& schedule) : SwitchPlacement(cluster, schedule.spec().switches) {}
};

// What an iteration's collectives run on: the cluster of its GPUs, with switches where a bucket reduces in them.
class IterationPlatform {
 public:
  IterationPlatform(const Topology& topology, Placement placement, const IterationCollectives& collectives)
      : cluster_(topology, collectives.gpus, placement), placement_(cluster_, collectives.switches()) {}

  const Cluster& cluster() const { return cluster_; }
  const PlatformDescription& platform() const { return placement_.platform(); }
  int switches() const { return placement_.switches(); }

 private:
  Cluster cluster_;  // before placement_, which refers to it
  SwitchPlacement placement_;
};

}  // namespace ddl
