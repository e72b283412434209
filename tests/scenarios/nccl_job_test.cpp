// What NCCL's tuning model is told of a job on each shipped kind of node.

#include <gtest/gtest.h>

#include "common/invalid_argument.hpp"
#include "scenarios/nccl_job.hpp"

namespace ddl {
namespace {

Topology shipped(const std::string& name) {
  return loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json");
}

TEST(NcclJob, FourDgxH100NodesRingAtTheNvlinkRateUnderTheirEightNics) {
  const NcclJob job = ncclJobOf(shipped("dgx-h100-ndr"), 32);
  EXPECT_EQ(job.ranks, 32);
  EXPECT_EQ(job.nodes, 4);
  EXPECT_EQ(job.ranksPerNode(), 8);
  EXPECT_EQ(job.intraNode, NcclHardware::NVLink);
  EXPECT_EQ(job.computeCapability, 90);
  EXPECT_EQ(job.channels, 16);  // two per NIC
  // min(NVLink as NCCL credits it, 8 NICs x 50 GB/s)
  EXPECT_DOUBLE_EQ(job.ringBusBandwidthBps, 370.8e9);
}

TEST(NcclJob, NvlsOnlyWithAMulticastSwitchWhereTheCallerCanSimulateIt) {
  const NcclJob one = ncclJobOf(shipped("dgx-h100-ndr"), 8, NvlsUse::WhereNcclRunsIt);
  EXPECT_TRUE(one.nvls);
  // The GPU's port (1.675 TB/s) and its NVLink to the switch as NCCL credits it: the narrower.
  EXPECT_DOUBLE_EQ(one.nvlinkBandwidthBps, 370.8e9);
  EXPECT_FALSE(ncclJobOf(shipped("dgx-h100-ndr"), 8).nvls) << "by default, as for a runtime, which cannot place the switch";
  // Across nodes NVLS runs as NVLS-tree, each GPU heading its own shard over its own NIC.
  const NcclJob two = ncclJobOf(shipped("dgx-h100-ndr"), 16, NvlsUse::WhereNcclRunsIt);
  EXPECT_TRUE(two.nvls);
  EXPECT_DOUBLE_EQ(two.nvlsHeadNetworkBandwidthBps, 50e9);
  EXPECT_FALSE(ncclJobOf(shipped("dgx-h100-ndr"), 1, NvlsUse::WhereNcclRunsIt).nvls) << "one GPU has nothing to reduce with";
  EXPECT_FALSE(ncclJobOf(shipped("dgx-a100-hdr"), 8, NvlsUse::WhereNcclRunsIt).nvls) << "no multicast switch, and Ampere";
}

TEST(NcclJob, TwoDgxA100NodesAreHeldToTheirNvlinkAndOneNodeTooWithoutNics) {
  const NcclJob two = ncclJobOf(shipped("dgx-a100-hdr"), 16);
  EXPECT_EQ(two.computeCapability, 80);
  EXPECT_DOUBLE_EQ(two.ringBusBandwidthBps, 200e9);  // 8 HDR NICs x 25 GB/s, under 240 of NVLink
  const NcclJob one = ncclJobOf(shipped("dgx-a100-hdr"), 8);
  EXPECT_EQ(one.nodes, 1);
  EXPECT_DOUBLE_EQ(one.ringBusBandwidthBps, 240e9);
}

TEST(NcclJob, OlderAndPlainerNodesAreWhatNcclsTablesCallThem) {
  const NcclJob minsky = ncclJobOf(shipped("minsky-p100-ib-edr"), 8);
  EXPECT_EQ(minsky.computeCapability, 60);
  EXPECT_EQ(minsky.intraNode, NcclHardware::NVLink);
  EXPECT_FALSE(ncclEnables(minsky, Protocol::LL128));
  // One H200 per node: every ring hop is the network's, at one NIC's rate.
  const Topology flat = shipped("flat-h200-edr");
  const NcclJob spread = ncclJobOf(flat, 4);
  EXPECT_EQ(spread.ranksPerNode(), 1);
  EXPECT_EQ(spread.intraNode, NcclHardware::PCI);
  EXPECT_DOUBLE_EQ(spread.ringBusBandwidthBps, flat.network.nicBandwidthBps);
  EXPECT_EQ(computeCapabilityOf("MI300X"), 0);
}

// A job on some of each node's GPUs: NCCL's channels and ring bandwidth follow the NICs those GPUs leave
// through, not every NIC cabled.
TEST(NcclJob, AJobOnSomeOfEachNodesGpusHasTheirNicsAlone) {
  const Topology half = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json", {.gpusPerNode = 4});
  const NcclJob job = ncclJobOf(half, 16);
  EXPECT_EQ(job.nodes, 4);
  EXPECT_EQ(job.ranksPerNode(), 4);
  EXPECT_EQ(job.channels, 8);  // two per NIC, four NICs
  EXPECT_DOUBLE_EQ(job.ringBusBandwidthBps, 200e9);  // 4 NICs x 50 GB/s, under NVLink's 370.8
  const Topology one = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-a100-hdr.json", {.gpusPerNode = 1});
  EXPECT_EQ(one.name, "dgx-a100-hdr (1 GPU per node)");
  const NcclJob spread = ncclJobOf(one, 2);
  EXPECT_EQ(spread.ranksPerNode(), 1);
  EXPECT_EQ(spread.channels, 2);
  EXPECT_DOUBLE_EQ(spread.ringBusBandwidthBps, 25e9);
}

TEST(NcclJob, RefusesGpusThatLeaveANodePartFull) {
  try {
    ncclJobOf(shipped("dgx-h100-ndr"), 12);
    FAIL() << "12 GPUs on 8-GPU nodes were taken";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "gpus");
  }
}

}  // namespace
}  // namespace ddl
