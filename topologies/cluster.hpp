#pragma once
// A topology instantiated for a job: enough nodes for the ranks, each rank placed on a GPU, and the route
// of every message: out of the GPU's port, through the node to its NIC, over the fabric (the leaf of a
// two-level fat tree, and the core if the other node hangs off another leaf), and in at the other end.

#include "topologies/node_routes.hpp"
#include "topologies/platform_description.hpp"
#include "topologies/topology.hpp"

namespace ddl {

enum class Placement {
  Packed,      // fill each node before the next (mpirun --map-by slot)
  RoundRobin,  // one rank per node in turn (mpirun --map-by node)
};

class Cluster final : public PlatformDescription {
 public:
  // Enough nodes for `ranks` ranks, ceil(ranks / GPUs per node); throws InvalidArgument if the node's
  // devices are not connected.
  Cluster(Topology topology, int ranks, Placement placement);

  struct Location {
    int node;
    int gpu;
  };
  Location locate(Rank rank) const;
  int nodes() const { return nodes_; }
  int ranksOnBusiestNode() const;  // the most ranks placed on one node
  int leaves() const { return (nodes_ + topology_.network.nodesPerLeaf - 1) / topology_.network.nodesPerLeaf; }
  int leafOf(int node) const { return node / topology_.network.nodesPerLeaf; }
  const Topology& topology() const { return topology_; }
  const NodeRoutes& nodeRoutes() const { return routes_; }

  int hosts() const override { return ranks_; }
  std::string hostName(Rank rank) const override;
  PlatformLink link(LinkId id) const override;
  std::vector<RouteHop> route(Rank from, Rank to) const override;
  // The pieces route() joins, which the zones of an exported SimGrid platform hold one level each:
  // between two ranks of one node; from a rank out of its node's NIC (its GPU port, the node's links, the
  // NIC's cable) and back in; and between two leaves (the uplinks of both; none within a leaf).
  std::vector<RouteHop> routeWithinNode(Rank from, Rank to) const;
  std::vector<RouteHop> routeOutOfNode(Rank rank) const;
  std::vector<RouteHop> routeIntoNode(Rank rank) const;
  std::vector<RouteHop> routeBetweenLeaves(int fromLeaf, int toLeaf) const;
  // From a rank's GPU to its node's multicast switch (NodeTopology::multicastSwitch) and back: its port and
  // the node's links (topologies/platform_with_switches.hpp).
  std::vector<RouteHop> routeToSwitch(Rank rank) const;
  std::vector<RouteHop> routeFromSwitch(Rank rank) const;
  double reduceSecondsPerByte(Rank) const override { return 1 / topology_.node.reduceBps; }
  // On a node whose ranks share one GPU's memory: a reduction of n bytes is memory traffic worth
  // n x (memory bandwidth / reduce rate) bytes of copying, which alone takes n / reduce_Bps.
  std::optional<ReductionTraffic> reductionTraffic(Rank rank) const override;
  std::optional<double> sharedComputeThroughput() const override {
    return topology_.sharedHost ? std::optional<double>(topology_.sharedHost->throughput) : std::nullopt;
  }
  // Between two nodes of a shared host that charges carrying: its core-seconds per byte in ranks' compute,
  // throughput / cores of a rank's work per core-second (a core's second displaces that much compute).
  double networkWorkSecondsPerByte(Rank from, Rank to) const override {
    if (!topology_.sharedHost || locate(from).node == locate(to).node) return 0;
    const SharedHost& host = *topology_.sharedHost;
    return host.networkCoreSecondsPerByte * host.throughput / host.cores;
  }

 private:
  // Link ids: each node's own links, then its GPU ports, then its shared memory if it has one; then every
  // node's NIC cables; then leaf uplinks.
  LinkId nodeLinks() const {
    return static_cast<LinkId>(topology_.node.links.size() + topology_.node.gpus + (topology_.node.sharedMemory ? 1 : 0));
  }
  LinkId port(int node, int gpu) const { return node * nodeLinks() + static_cast<LinkId>(topology_.node.links.size()) + gpu; }
  LinkId memory(int node) const { return port(node, topology_.node.gpus); }
  LinkId cable(int node, int nic) const { return nodes_ * nodeLinks() + node * topology_.nicsUsed + nic; }
  LinkId uplink(int leaf) const { return nodes_ * nodeLinks() + static_cast<LinkId>(nodes_) * topology_.nicsUsed + leaf; }
  void appendNodeHops(std::vector<RouteHop>& route, int node, const std::vector<NodeHop>& hops) const;

  Topology topology_;
  NodeRoutes routes_;
  int ranks_;
  int nodes_;
  Placement placement_;
};

}  // namespace ddl
