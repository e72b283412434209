#pragma once
// The command-line options that pick a cluster and the topology knobs a scenario may also turn.

#include <CLI/CLI.hpp>

#include "topologies/cluster.hpp"

namespace ddl {

class TopologyFlags {
 public:
  // Adds --nics-per-node, --nodes-per-leaf, --oversubscription, --gpus-per-node and --placement; the topology itself is
  // a positional or option the caller adds, bound to topology().
  void addTo(CLI::App* command);
  std::string& topology() { return topology_; }

  // The topology file named by the option `field` (a name under topologies/ or a path), with the knobs
  // applied.
  Topology load(const std::string& field = "--topology") const;
  Placement placement() const;

 private:
  std::string topology_;
  std::string placement_ = "packed";
  TopologyOverrides overrides_;
};

}  // namespace ddl
