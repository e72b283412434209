#include "scenarios/nccl_job.hpp"

#include <algorithm>
#include <limits>

#include "algorithms/collectives/option_table.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"
#include "scenarios/scenario.hpp"
#include "topologies/cluster.hpp"

namespace ddl {

int computeCapabilityOf(const std::string& gpuModel) {
  const auto named = [&](const char* prefix) { return gpuModel.rfind(prefix, 0) == 0; };
  if (named("H100") || named("H200") || named("H800")) return 90;
  if (named("A100") || named("A800")) return 80;
  if (named("V100")) return 70;
  if (named("P100")) return 60;
  return 0;
}

NcclJob ncclJobOf(const Topology& topology, int gpus, NvlsUse nvls) {
  const Cluster cluster(topology, gpus, Placement::Packed);
  NcclJob job;
  job.ranks = gpus;
  job.nodes = cluster.nodes();
  // Packed, the ranks fill every node but the last: NCCL's model, and nccl-ring's nodes, need every node alike.
  if (job.nodes > 1 && gpus % topology.node.gpus != 0)
    throw InvalidArgument("gpus", std::to_string(gpus) + " GPUs leave the last of " + std::to_string(job.nodes) + " nodes of " +
                                      topology.name + " part full; NCCL's tuning model takes nodes of as many ranks each (a "
                                      "multiple of " + std::to_string(topology.node.gpus) + ")");
  job.computeCapability = computeCapabilityOf(topology.node.gpuModel);
  const ClusterShape shape = clusterShapeOf(cluster);
  job.channels = static_cast<int>(std::get<std::int64_t>(findOptionDeclaration("channels")->derive(
      findAlgorithm(CollectiveKind::Allreduce, "nccl-ring"), shape, gpus)));
  double bandwidth = std::numeric_limits<double>::infinity();
  if (job.ranksPerNode() >= 2) {
    for (const RouteHop& hop : cluster.route(0, 1)) {
      const PlatformLink link = cluster.link(hop.link);
      bandwidth = std::min(bandwidth, link.bandwidthBps);
      if (link.hardware == LinkHardware::NVLink) job.intraNode = NcclHardware::NVLink;
    }
  }
  if (job.nodes > 1)
    bandwidth = std::min(bandwidth, topology.network.nicBandwidthBps * (job.ranksPerNode() == 1 ? 1 : shape.nicsPerNode));
  job.ringBusBandwidthBps = bandwidth;
  if (nvls == NvlsUse::WhereNcclRunsIt && job.computeCapability >= 90 && job.ranksPerNode() >= 2 &&
      !topology.node.multicastSwitch.empty()) {
    job.nvls = true;
    job.nvlinkBandwidthBps = std::numeric_limits<double>::infinity();
    for (const RouteHop& hop : cluster.routeToSwitch(0)) job.nvlinkBandwidthBps = std::min(job.nvlinkBandwidthBps, cluster.link(hop.link).bandwidthBps);
    // Every GPU of a node heads its own shard (nccl-nvls-tree), sharing the node's NICs.
    job.nvlsHeadNetworkBandwidthBps = topology.network.nicBandwidthBps * shape.nicsPerNode / job.ranksPerNode();
  }
  return job;
}

}  // namespace ddl
