#include "topologies/topology_grid.hpp"

#include <algorithm>

namespace ddl {

std::vector<int> topologyGrid(const Topology& topology, int gpus) {
  const int perNode = topology.node.gpus;
  const int perLeaf = topology.network.nodesPerLeaf;
  std::vector<int> grid;
  if (gpus <= perNode) {
    grid = {gpus};
  } else if (gpus % perNode != 0) {
    return {};
  } else {
    const int nodes = gpus / perNode;
    if (nodes <= perLeaf) {
      grid = {perNode, nodes};
    } else if (nodes % perLeaf != 0) {
      return {};
    } else {
      grid = {perNode, perLeaf, nodes / perLeaf};
    }
  }
  std::erase(grid, 1);
  if (grid.empty()) grid = {1};
  return grid;
}

}  // namespace ddl
