#include "sim/cli/topology_flags.hpp"

#include "common/cli_checks.hpp"
#include "common/data_files.hpp"
#include "common/invalid_argument.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

void TopologyFlags::addTo(CLI::App* command) {
  command->add_option("--nics-per-node", overrides_.nicsPerNode, "Cable this many of each node's NICs")->check(CLI::Range(1, 64));
  command->add_option("--nodes-per-leaf", overrides_.nodesPerLeaf, "Nodes under each leaf switch")->check(CLI::Range(1, 1 << 20));
  command->add_option("--oversubscription", overrides_.oversubscription, "Leaf downlink over uplink capacity")
      ->check(finiteIn(1, 1000));
  command->add_option("--gpus-per-node", overrides_.gpusPerNode,
                      "Run this many ranks on each node, on its first GPUs (default: all)")
      ->check(CLI::Range(1, 1024));
  command->add_option("--placement", placement_, "packed (fill each node) or round-robin (one rank per node in turn)")
      ->capture_default_str();
}

Topology TopologyFlags::load(const std::string& field) const {
  if (topology_.empty()) throw InvalidArgument(field, "required: a name under topologies/ or a file");
  return loadTopology(findDataFile("topologies", topology_, "./", field), overrides_);
}

Placement TopologyFlags::placement() const {
  if (placement_ == "packed") return Placement::Packed;
  if (placement_ == "round-robin") return Placement::RoundRobin;
  throw InvalidArgument("--placement", "'" + placement_ + "' is not packed or round-robin");
}

}  // namespace ddl
