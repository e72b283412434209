// NCCL's protocols as ddlsim runs them: NCCL's own constants (tuning.cc, v2.23.4-1), and a platform under a
// protocol whose every link is the platform's, scaled by the link's hardware.

#include <gtest/gtest.h>

#include "algorithms/tuning/nccl_protocol.hpp"
#include "common/invalid_argument.hpp"
#include "sim/engine/platform_under_protocol.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

std::string topologyFile(const std::string& name) { return std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json"; }

TEST(CommunicationProtocol, IsNamedAsNcclProtoNamesItInAnyCase) {
  EXPECT_EQ(parseProtocol("LL128", "--protocol"), Protocol::LL128);
  EXPECT_EQ(parseProtocol("ll", "--protocol"), Protocol::LL);
  EXPECT_EQ(parseProtocol("Simple", "--protocol"), Protocol::Simple);
  for (Protocol protocol : allProtocols()) EXPECT_EQ(parseProtocol(toString(protocol), "f"), protocol);
}

TEST(CommunicationProtocol, RefusesANameThatIsNoneNamingTheFieldAndTheChoices) {
  try {
    parseProtocol("ll64", "--protocol");
    FAIL() << "ll64 was taken";
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.field(), "--protocol");
    EXPECT_NE(std::string(e.what()).find("simple, ll or ll128"), std::string::npos) << e.what();
  }
}

TEST(CommunicationProtocol, SimpleIsTheCalibrationEveryTopologyCarries) {
  const ProtocolCosts simple = costsOf(Protocol::Simple);
  EXPECT_EQ(simple.bandwidthShare, 1);
  for (NcclHardware hardware : {NcclHardware::NVLink, NcclHardware::PCI, NcclHardware::Network})
    EXPECT_EQ(simple.latencyRatio(hardware), 1);
  EXPECT_DOUBLE_EQ(simple.baseLatencySeconds, 8.4e-6);
}

TEST(CommunicationProtocol, LowLatencyProtocolsTradeBandwidthForLatencyAsNcclCostsThem) {
  const ProtocolCosts ll = costsOf(Protocol::LL);
  const ProtocolCosts ll128 = costsOf(Protocol::LL128);
  // Half of every 8-byte store is a flag; 8 bytes of each 128-byte line.
  EXPECT_DOUBLE_EQ(ll.bandwidthShare, 0.5);
  EXPECT_DOUBLE_EQ(ll128.bandwidthShare, 0.92);
  // Ring per-hop latencies over Simple's: NVLink .6 and 1.9 of 3.4 us, PCI 1.0 and 2.5 of 5.7, network 2.7 and 4.0 of 14.
  EXPECT_DOUBLE_EQ(ll.latencyRatio(NcclHardware::NVLink), 0.6 / 3.4);
  EXPECT_DOUBLE_EQ(ll.latencyRatio(NcclHardware::PCI), 1.0 / 5.7);
  EXPECT_DOUBLE_EQ(ll.latencyRatio(NcclHardware::Network), 2.7 / 14.0);
  EXPECT_DOUBLE_EQ(ll128.latencyRatio(NcclHardware::NVLink), 1.9 / 3.4);
  EXPECT_DOUBLE_EQ(ll128.latencyRatio(NcclHardware::Network), 4.0 / 14.0);
  EXPECT_DOUBLE_EQ(ll.baseLatencySeconds, 6.6e-6);
  EXPECT_DOUBLE_EQ(ll128.baseLatencySeconds, 14.0e-6);
  for (NcclHardware hardware : {NcclHardware::NVLink, NcclHardware::PCI, NcclHardware::Network}) {
    EXPECT_LT(ll.latencyRatio(hardware), ll128.latencyRatio(hardware));
    EXPECT_LT(ll128.latencyRatio(hardware), 1);
  }
}

TEST(CommunicationProtocol, NcclsTreeAndOneRankPerNodeCostTheTreesHops) {
  // tuning.cc's hwLat Tree row and baseLat: LL on the network 5.0 us where the ring's is 2.7.
  const ProtocolCosts tree = costsOf(Protocol::LL, NcclLatencyRow::Tree, false);
  EXPECT_DOUBLE_EQ(tree.networkHopSeconds, 5.0e-6);
  EXPECT_DOUBLE_EQ(tree.nvlinkHopSeconds, 0.6e-6);
  EXPECT_DOUBLE_EQ(tree.baseLatencySeconds, 6.8e-6);
  EXPECT_DOUBLE_EQ(costsOf(Protocol::LL128, NcclLatencyRow::Tree, false).nvlinkHopSeconds, 1.25e-6);
  EXPECT_DOUBLE_EQ(costsOf(Protocol::Simple, NcclLatencyRow::Tree, false).pciHopSeconds, 4.0e-6);
  // "With ppn=1 latencies are fully exposed, use the Tree network latency": the ring keeps its own elsewhere.
  const ProtocolCosts ring = costsOf(Protocol::LL, NcclLatencyRow::Ring, true);
  EXPECT_DOUBLE_EQ(ring.networkHopSeconds, 5.0e-6);
  EXPECT_DOUBLE_EQ(ring.nvlinkHopSeconds, costsOf(Protocol::LL).nvlinkHopSeconds);
  EXPECT_DOUBLE_EQ(ring.baseLatencySeconds, costsOf(Protocol::LL).baseLatencySeconds);
  EXPECT_DOUBLE_EQ(costsOf(Protocol::LL, NcclLatencyRow::Ring, false).networkHopSeconds, costsOf(Protocol::LL).networkHopSeconds);
  // Scaled against the ring's Simple, to which every topology is calibrated: Simple's network hop is 14 us in
  // both rows, so the tree under Simple changes nothing there.
  EXPECT_DOUBLE_EQ(costsOf(Protocol::Simple, NcclLatencyRow::Tree, true).latencyRatio(NcclHardware::Network), 1.0);
}

TEST(ClusterLinks, SayWhichOfNcclsHardwareClassesTheyAre) {
  const Cluster cluster(loadTopology(topologyFile("dgx-h100-ndr")), 16, Placement::Packed);
  // Within a node: the two ports and NVLink through the switch, all NVLink.
  for (const RouteHop& hop : cluster.route(0, 1)) EXPECT_EQ(cluster.link(hop.link).hardware, LinkHardware::NVLink) << cluster.link(hop.link).name;
  // Between nodes: the ports (the node's fabric is NVLink), PCIe to the NIC, the cables.
  int pcie = 0;
  int network = 0;
  for (const RouteHop& hop : cluster.route(0, 8)) {
    const PlatformLink link = cluster.link(hop.link);
    if (link.name.find("-port") != std::string::npos) {
      EXPECT_EQ(link.hardware, LinkHardware::NVLink) << link.name;
    }
    if (link.name.find("-cable") != std::string::npos) {
      EXPECT_EQ(link.hardware, LinkHardware::Network) << link.name;
    }
    pcie += link.hardware == LinkHardware::PCIe;
    network += link.hardware == LinkHardware::Network;
  }
  EXPECT_GE(pcie, 2);
  EXPECT_EQ(network, 2);
  // A node without NVLink is PCI throughout.
  const Cluster flat(loadTopology(topologyFile("flat-h200-edr")), 2, Placement::Packed);
  for (const RouteHop& hop : flat.route(0, 1)) EXPECT_NE(flat.link(hop.link).hardware, LinkHardware::NVLink) << flat.link(hop.link).name;
}

TEST(PlatformUnderProtocol, ScalesEachLinkByItsHardwareAndKeepsEverythingElse) {
  const Cluster cluster(loadTopology(topologyFile("dgx-h100-ndr")), 16, Placement::Packed);
  const PlatformUnderProtocol ll(cluster, Protocol::LL);
  const ProtocolCosts costs = costsOf(Protocol::LL);
  ASSERT_EQ(ll.hosts(), cluster.hosts());
  for (const auto& [from, to] : {std::pair{0, 1}, std::pair{0, 8}, std::pair{15, 3}}) {
    const std::vector<RouteHop> route = cluster.route(from, to);
    const std::vector<RouteHop> same = ll.route(from, to);
    ASSERT_EQ(route.size(), same.size());
    for (std::size_t i = 0; i < route.size(); ++i) {
      EXPECT_EQ(same[i].link, route[i].link);
      const PlatformLink original = cluster.link(route[i].link);
      const PlatformLink scaled = ll.link(route[i].link);
      EXPECT_EQ(scaled.name, original.name);
      EXPECT_EQ(scaled.sharing, original.sharing);
      EXPECT_DOUBLE_EQ(scaled.bandwidthBps, original.bandwidthBps * 0.5);
      EXPECT_DOUBLE_EQ(scaled.latencySeconds,
                       original.latencySeconds * costs.latencyRatio(PlatformUnderProtocol::ncclHardwareOf(original.hardware)));
    }
  }
  EXPECT_EQ(ll.reduceSecondsPerByte(3), cluster.reduceSecondsPerByte(3));
  EXPECT_EQ(PlatformUnderProtocol::ncclHardwareOf(LinkHardware::NVLink), NcclHardware::NVLink);
  EXPECT_EQ(PlatformUnderProtocol::ncclHardwareOf(LinkHardware::PCIe), NcclHardware::PCI);
  EXPECT_EQ(PlatformUnderProtocol::ncclHardwareOf(LinkHardware::Network), NcclHardware::Network);
  // Simple is the platform as calibrated.
  const PlatformUnderProtocol simple(cluster, Protocol::Simple);
  for (const RouteHop& hop : cluster.route(0, 8)) {
    EXPECT_EQ(simple.link(hop.link).bandwidthBps, cluster.link(hop.link).bandwidthBps);
    EXPECT_EQ(simple.link(hop.link).latencySeconds, cluster.link(hop.link).latencySeconds);
  }
}

TEST(PlatformUnderProtocol, LeavesANetworkDevicesOwnLatencyAsItIs) {
  // p5's EFA: 10 us at each NIC that NCCL's model adds under every protocol (latencyInter), beside the per-hop
  // cost it scales; dgx-h100-ndr, the same node over InfiniBand, has none.
  const Cluster efa(loadTopology(topologyFile("p5-h100-efa")), 16, Placement::Packed);
  const Cluster ib(loadTopology(topologyFile("dgx-h100-ndr")), 16, Placement::Packed);
  const PlatformUnderProtocol efaLL(efa, Protocol::LL);
  const PlatformUnderProtocol ibLL(ib, Protocol::LL);
  const double ratio = costsOf(Protocol::LL).latencyRatio(NcclHardware::Network);
  int cables = 0;
  for (const RouteHop& hop : efa.route(0, 8)) {
    if (efa.link(hop.link).name.find("cable") == std::string::npos) continue;
    ++cables;
    EXPECT_DOUBLE_EQ(efa.link(hop.link).latencySeconds, ib.link(hop.link).latencySeconds + 10e-6);
    EXPECT_DOUBLE_EQ(efa.link(hop.link).protocolFixedLatencySeconds, 10e-6);
    EXPECT_DOUBLE_EQ(ibLL.link(hop.link).latencySeconds, ib.link(hop.link).latencySeconds * ratio);
    EXPECT_DOUBLE_EQ(efaLL.link(hop.link).latencySeconds, ib.link(hop.link).latencySeconds * ratio + 10e-6);
  }
  EXPECT_EQ(cables, 2);  // out of one node, into the other
}

}  // namespace
}  // namespace ddl
