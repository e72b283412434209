#pragma once
// Routes inside one node: between GPUs, and between each GPU and the NIC it uses. Shortest by latency
// (fewest hops among equals); a GPU or a NIC is never crossed on the way to somewhere else, as GPUs do
// not forward traffic over NVLink. Ranks sharing one GPU's memory (NodeTopology::sharedMemory) need no
// routes between them, and a node without NICs none to a NIC.

#include <vector>

#include "topologies/platform_description.hpp"
#include "topologies/topology.hpp"

namespace ddl {

struct NodeHop {
  int link;  // index into NodeTopology::links
  bool up;
};

class NodeRoutes {
 public:
  // Throws InvalidArgument naming the topology file if some GPU cannot reach another or a used NIC.
  explicit NodeRoutes(const Topology& topology);

  const std::vector<NodeHop>& betweenGpus(int from, int to) const { return gpuToGpu_[index(from, to)]; }
  // The used NIC (0 .. nicsUsed-1) closest to `gpu`; among equally close ones, spread by GPU index.
  int nicOf(int gpu) const { return nicOfGpu_[static_cast<std::size_t>(gpu)]; }
  const std::vector<NodeHop>& gpuToNic(int gpu) const { return gpuToNic_[static_cast<std::size_t>(gpu)]; }
  const std::vector<NodeHop>& nicToGpu(int gpu) const { return nicToGpu_[static_cast<std::size_t>(gpu)]; }
  // Between each GPU and the node's multicast switch (NodeTopology::multicastSwitch); empty where it has none.
  const std::vector<NodeHop>& gpuToSwitch(int gpu) const { return gpuToSwitch_[static_cast<std::size_t>(gpu)]; }
  const std::vector<NodeHop>& switchToGpu(int gpu) const { return switchToGpu_[static_cast<std::size_t>(gpu)]; }
  // How many NICs the node's GPUs leave it through: every used NIC of a full node, fewer where a job uses
  // some of its GPUs (withGpusPerNode); 0 on a node on its own.
  int nicsInUse() const;

 private:
  std::size_t index(int from, int to) const { return static_cast<std::size_t>(from * gpus_ + to); }

  int gpus_;
  std::vector<std::vector<NodeHop>> gpuToGpu_;
  std::vector<int> nicOfGpu_;
  std::vector<std::vector<NodeHop>> gpuToNic_;
  std::vector<std::vector<NodeHop>> nicToGpu_;
  std::vector<std::vector<NodeHop>> gpuToSwitch_;
  std::vector<std::vector<NodeHop>> switchToGpu_;
};

}  // namespace ddl
