#include "topologies/cluster.hpp"

#include <algorithm>
#include <vector>

#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// NVLink by the shipped files' naming ("nvlink-gpu0", "nvlink-gpu0-cpu0"); every other link inside a node is
// of NCCL's PCI class (PCIe, X-bus, UPI): see topologies/README.md, "Protocols".
LinkHardware hardwareOf(const TopologyLink& link) {
  return link.name.rfind("nvlink", 0) == 0 ? LinkHardware::NVLink : LinkHardware::PCIe;
}

// A GPU port's software latency is that of the node's GPU fabric: NVLink where any GPU has NVLink.
LinkHardware portHardwareOf(const NodeTopology& node) {
  for (const TopologyLink& link : node.links)
    if (hardwareOf(link) == LinkHardware::NVLink) return LinkHardware::NVLink;
  return LinkHardware::PCIe;
}

}  // namespace

Cluster::Cluster(Topology topology, int ranks, Placement placement)
    : topology_(std::move(topology)), routes_(topology_), ranks_(ranks), placement_(placement) {
  if (ranks < 1) throw InvalidArgument("gpus", "a cluster needs at least one GPU");
  nodes_ = (ranks + topology_.node.gpus - 1) / topology_.node.gpus;
  if (nodes_ > 1 && topology_.nicsUsed == 0)
    throw InvalidArgument(topology_.path + ": $.node.nics", "the node has no NIC, so a job must fit on one node: at most " +
                                                               std::to_string(topology_.node.gpus) + " GPUs, not " +
                                                               std::to_string(ranks));
}

int Cluster::ranksOnBusiestNode() const {
  std::vector<int> ranksOn(static_cast<std::size_t>(nodes_), 0);
  int most = 0;
  for (Rank rank = 0; rank < ranks_; ++rank) most = std::max(most, ++ranksOn[static_cast<std::size_t>(locate(rank).node)]);
  return most;
}

Cluster::Location Cluster::locate(Rank rank) const {
  const int gpusPerNode = topology_.node.gpus;
  const int node = placement_ == Placement::Packed ? rank / gpusPerNode : rank % nodes_;
  const int local = placement_ == Placement::Packed ? rank % gpusPerNode : rank / nodes_;
  return {node, topology_.node.rankOrder[static_cast<std::size_t>(local)]};
}

std::string Cluster::hostName(Rank rank) const {
  const Location at = locate(rank);
  return "n" + std::to_string(at.node) + "-" + NodeTopology::gpuName(at.gpu);
}

PlatformLink Cluster::link(LinkId id) const {
  const LinkId nodeBlock = nodes_ * nodeLinks();
  if (id < nodeBlock) {
    const auto node = static_cast<int>(id / nodeLinks());
    const auto local = static_cast<std::size_t>(id % nodeLinks());
    const std::string prefix = "n" + std::to_string(node) + "-";
    if (local < topology_.node.links.size()) {
      const TopologyLink& l = topology_.node.links[local];
      return {prefix + l.name, l.bandwidthBps, l.latencySeconds, LinkSharing::PerDirection, hardwareOf(l)};
    }
    const int gpu = static_cast<int>(local - topology_.node.links.size());
    if (gpu == topology_.node.gpus) {
      const NodeTopology::SharedMemory& shared = *topology_.node.sharedMemory;
      return {prefix + "memory", shared.bandwidthBps, shared.latencySeconds, LinkSharing::BothDirections};
    }
    return {prefix + NodeTopology::gpuName(gpu) + "-port", topology_.node.portBandwidthBps, topology_.node.portLatencySeconds,
            LinkSharing::PerDirection, portHardwareOf(topology_.node)};
  }
  const LinkId cableBlock = static_cast<LinkId>(nodes_) * topology_.nicsUsed;
  const NetworkTopology& network = topology_.network;
  if (id < nodeBlock + cableBlock) {
    const auto node = static_cast<int>((id - nodeBlock) / topology_.nicsUsed);
    const auto nic = static_cast<std::size_t>((id - nodeBlock) % topology_.nicsUsed);
    return {"n" + std::to_string(node) + "-" + topology_.node.nics[nic] + "-cable", network.nicBandwidthBps,
            network.nicLatencySeconds + network.deviceLatencySeconds, LinkSharing::PerDirection, LinkHardware::Network,
            network.deviceLatencySeconds};
  }
  const double uplinkBandwidth = network.nodesPerLeaf * topology_.nicsUsed * network.nicBandwidthBps / network.oversubscription;
  return {"leaf" + std::to_string(id - nodeBlock - cableBlock) + "-uplink", uplinkBandwidth, network.coreLatencySeconds / 2,
          LinkSharing::PerDirection, LinkHardware::Network};
}

void Cluster::appendNodeHops(std::vector<RouteHop>& route, int node, const std::vector<NodeHop>& hops) const {
  for (const NodeHop& hop : hops) route.push_back({node * nodeLinks() + hop.link, hop.up});
}

std::vector<RouteHop> Cluster::routeWithinNode(Rank from, Rank to) const {
  const Location src = locate(from);
  const Location dst = locate(to);
  std::vector<RouteHop> route{{port(src.node, src.gpu), true}};
  if (topology_.node.sharedMemory)
    route.push_back({memory(src.node), true});
  else
    appendNodeHops(route, src.node, routes_.betweenGpus(src.gpu, dst.gpu));
  route.push_back({port(dst.node, dst.gpu), false});
  return route;
}

std::vector<RouteHop> Cluster::routeOutOfNode(Rank rank) const {
  const Location at = locate(rank);
  std::vector<RouteHop> route{{port(at.node, at.gpu), true}};
  appendNodeHops(route, at.node, routes_.gpuToNic(at.gpu));
  route.push_back({cable(at.node, routes_.nicOf(at.gpu)), true});
  return route;
}

std::vector<RouteHop> Cluster::routeIntoNode(Rank rank) const {
  const Location at = locate(rank);
  std::vector<RouteHop> route{{cable(at.node, routes_.nicOf(at.gpu)), false}};
  appendNodeHops(route, at.node, routes_.nicToGpu(at.gpu));
  route.push_back({port(at.node, at.gpu), false});
  return route;
}

std::vector<RouteHop> Cluster::routeToSwitch(Rank rank) const {
  const Location at = locate(rank);
  std::vector<RouteHop> route{{port(at.node, at.gpu), true}};
  appendNodeHops(route, at.node, routes_.gpuToSwitch(at.gpu));
  return route;
}

std::vector<RouteHop> Cluster::routeFromSwitch(Rank rank) const {
  const Location at = locate(rank);
  std::vector<RouteHop> route;
  appendNodeHops(route, at.node, routes_.switchToGpu(at.gpu));
  route.push_back({port(at.node, at.gpu), false});
  return route;
}

std::vector<RouteHop> Cluster::routeBetweenLeaves(int fromLeaf, int toLeaf) const {
  if (fromLeaf == toLeaf) return {};
  return {{uplink(fromLeaf), true}, {uplink(toLeaf), false}};
}

std::vector<RouteHop> Cluster::route(Rank from, Rank to) const {
  const int fromNode = locate(from).node;
  const int toNode = locate(to).node;
  if (fromNode == toNode) return routeWithinNode(from, to);
  std::vector<RouteHop> route = routeOutOfNode(from);
  for (auto part : {routeBetweenLeaves(leafOf(fromNode), leafOf(toNode)), routeIntoNode(to)})
    route.insert(route.end(), part.begin(), part.end());
  return route;
}

std::optional<ReductionTraffic> Cluster::reductionTraffic(Rank rank) const {
  const auto& shared = topology_.node.sharedMemory;
  if (!shared) return std::nullopt;
  const int node = locate(rank).node;
  return ReductionTraffic{"n" + std::to_string(node) + "-memory", {{memory(node), true}}, shared->bandwidthBps / topology_.node.reduceBps};
}

}  // namespace ddl
