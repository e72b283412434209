// NCCL's tuning model as ddlsim's nccl applies it: each estimate is NCCL's formula (src/graph/tuning.cc,
// v2.23.4-1) worked by hand here, and the choice is the fastest of them, on as many channels as the size
// keeps busy (src/enqueue.cc).

#include <cmath>

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/tuning/nccl_tuning_model.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// One DGX A100-like node: 8 ranks over NVLink, 16 channels, 240 GB/s of ring bus bandwidth.
NcclJob oneA100Node() {
  NcclJob job;
  job.ranks = 8;
  job.nodes = 1;
  job.intraNode = NcclHardware::NVLink;
  job.computeCapability = 80;
  job.channels = 16;
  job.ringBusBandwidthBps = 240e9;
  return job;
}

NcclJob twoA100Nodes() {
  NcclJob job = oneA100Node();
  job.ranks = 16;
  job.nodes = 2;
  job.ringBusBandwidthBps = 200e9;
  return job;
}

// One DGX H100 node of `ranks` GPUs where NCCL may run NVLS: NVLink credited 370.8 GB/s per GPU.
NcclJob h100NodeWithNvls(int ranks) {
  NcclJob job;
  job.ranks = ranks;
  job.nodes = 1;
  job.intraNode = NcclHardware::NVLink;
  job.computeCapability = 90;
  job.channels = 16;
  job.ringBusBandwidthBps = 370.8e9;
  job.nvls = true;
  job.nvlinkBandwidthBps = 370.8e9;
  return job;
}

// `nodes` DGX H100 nodes where NCCL may run NVLS-tree: each GPU heads its shard over a 50 GB/s NIC.
NcclJob h100NodesWithNvls(int nodes) {
  NcclJob job = h100NodeWithNvls(8 * nodes);
  job.nodes = nodes;
  job.nvlsHeadNetworkBandwidthBps = 50e9;
  return job;
}

TEST(NcclTuningModel, NvlsTreeTimeIsItsLatencyPlusBytesOverItsSearchedBandwidth) {
  // NVLink: 9 x 40 <= 370.8 (42 would need 378); the network's speed is raised to 48 (<= 50, < 2 x 40);
  // two nodes take the narrower, 40 per head GPU; more nodes halve the network's, 24. Latency: 25 us in the
  // node, 14 us per network hop, twice the tree's depth.
  EXPECT_NEAR(ncclNvlsTreeModelSeconds(h100NodesWithNvls(2), Protocol::Simple, 1e9), (25 + 2 * 14 + 1e9 / (1000 * 8 * 40 * 5.0 / 6)) * 1e-6,
              1e-12);
  EXPECT_NEAR(ncclNvlsTreeModelSeconds(h100NodesWithNvls(4), Protocol::Simple, 1e9), (25 + 4 * 14 + 1e9 / (1000 * 8 * 24 * 5.0 / 6)) * 1e-6,
              1e-12);
  EXPECT_TRUE(std::isinf(ncclNvlsTreeModelSeconds(h100NodeWithNvls(8), Protocol::Simple, 1e9))) << "one node runs NVLS";
  EXPECT_TRUE(std::isinf(ncclNvlsTreeModelSeconds(h100NodesWithNvls(2), Protocol::LL128, 1e9)));
  EXPECT_TRUE(std::isinf(ncclNvlsModelSeconds(h100NodesWithNvls(2), Protocol::Simple, 1e9))) << "NVLS across nodes needs CollNet";
}

TEST(NcclTuningModel, ChoosesNvlsTreeOnTwoDgxH100NodesAndTheRingOnFour) {
  // As nccl-tests#309 measured: 470 GB/s on 16 GPUs (above the NICs' limit), 365.8 on 32 (the ring's).
  const NcclChoice two = ncclChoice(h100NodesWithNvls(2), CollectiveKind::Allreduce, 4294967296.0);
  EXPECT_EQ(two.ncclAlgorithm, NcclAlgorithm::NvlsTree);
  EXPECT_EQ(two.algorithm.label(), "nccl-nvls-tree 16 channels, 8 per node, 131072 B shards");
  EXPECT_EQ(ncclChoice(h100NodesWithNvls(4), CollectiveKind::Allreduce, 4294967296.0).ncclAlgorithm, NcclAlgorithm::Ring);
  // Small messages pay NVLS-tree's 53 us of latency: NCCL's tree or ring takes them.
  EXPECT_NE(ncclChoice(h100NodesWithNvls(2), CollectiveKind::Allreduce, 1024).ncclAlgorithm, NcclAlgorithm::NvlsTree);
}

TEST(NcclTuningModel, NvlsTimeIsItsLatencyPlusBytesOverItsSearchedBandwidth) {
  // 8 GPUs: (8 + 1) x 40 GB/s fits 370.8 where 9 x 50 does not, so 8 channels of 40, times 5/6: 266.7 GB/s.
  EXPECT_NEAR(ncclNvlsModelSeconds(h100NodeWithNvls(8), Protocol::Simple, 1e9), (25 + 1e9 / (1000 * 8 * 40 * 5.0 / 6)) * 1e-6, 1e-12);
  // 5 GPUs: 6 x 60 fits, 5 channels of 60.
  EXPECT_NEAR(ncclNvlsModelSeconds(h100NodeWithNvls(5), Protocol::Simple, 1e9), (25 + 1e9 / (1000 * 5 * 60 * 5.0 / 6)) * 1e-6, 1e-12);
  // Simple only, allreduce only, and only where the job has it.
  EXPECT_TRUE(std::isinf(ncclNvlsModelSeconds(h100NodeWithNvls(8), Protocol::LL, 1e9)));
  EXPECT_TRUE(std::isinf(ncclNvlsModelSeconds(h100NodeWithNvls(8), Protocol::Simple, 1e9, CollectiveKind::AllGather)));
  NcclJob without = h100NodeWithNvls(8);
  without.nvls = false;
  EXPECT_TRUE(std::isinf(ncclNvlsModelSeconds(without, Protocol::Simple, 1e9)));
}

TEST(NcclTuningModel, ChoosesNvlsForLargeAllreducesFromFiveGpusOfOneH100Node) {
  // At 4 GPUs NVLS's 4 x 60 x 5/6 = 200 GB/s loses to the ring's 370.8 x 4/6 = 247; from 5 up it wins, as
  // NVIDIA/nccl#1455 measured NVLS at 5 to 8 GPUs only.
  EXPECT_EQ(ncclChoice(h100NodeWithNvls(4), CollectiveKind::Allreduce, 4e9).ncclAlgorithm, NcclAlgorithm::Ring);
  for (int ranks : {5, 6, 7, 8}) {
    const NcclChoice choice = ncclChoice(h100NodeWithNvls(ranks), CollectiveKind::Allreduce, 4e9);
    EXPECT_EQ(choice.ncclAlgorithm, NcclAlgorithm::Nvls) << ranks << " GPUs";
    EXPECT_EQ(choice.algorithm.algorithm->name, "nccl-nvls");
    EXPECT_EQ(choice.algorithm.options.channels, 16);
    EXPECT_EQ(choice.protocol, Protocol::Simple);
  }
  // Small messages stay with the ring under LL, and a forced LL never runs NVLS.
  EXPECT_EQ(ncclChoice(h100NodeWithNvls(8), CollectiveKind::Allreduce, 1024).ncclAlgorithm, NcclAlgorithm::Ring);
  EXPECT_EQ(ncclChoice(h100NodeWithNvls(8), CollectiveKind::Allreduce, 4e9, Protocol::LL).ncclAlgorithm, NcclAlgorithm::Ring);
}

TEST(NcclTuningModel, RingTimeIsNcclsLatencyPlusBytesOverItsBandwidth) {
  // LL on one node: 6.6 us base + 14 NVLink hops of 0.6 us; half of 240 GB/s capped at Ampere's 87.7, as
  // algorithm bandwidth 87.7 x 8 / 14.
  const double ll = 6.6 + 14 * 0.6 + 1024 / (1000 * 87.7 * 8 / 14);
  EXPECT_NEAR(ncclRingModelSeconds(oneA100Node(), Protocol::LL, 1024), ll * 1e-6, 1e-12);
  // Simple on one node: 8.4 + 14 x 3.4 us, 240 GB/s.
  const double simple = 8.4 + 14 * 3.4 + 1e9 / (1000 * 240 * 8.0 / 14);
  EXPECT_NEAR(ncclRingModelSeconds(oneA100Node(), Protocol::Simple, 1e9), simple * 1e-6, 1e-12);
  // LL128: 0.92 of 240 GB/s, under 16 channels x 20 GB/s.
  const double ll128 = 14.0 + 14 * 1.9 + 1e6 / (1000 * 240 * 0.92 * 8 / 14);
  EXPECT_NEAR(ncclRingModelSeconds(oneA100Node(), Protocol::LL128, 1e6), ll128 * 1e-6, 1e-12);
}

TEST(NcclTuningModel, RingsAcrossNodesPayTheNetworkAndThePlateau) {
  // 30 steps, 2 of them between nodes (14 us each under Simple); the other 28 at least 3 us of network
  // overhead; and, with 64 bytes or more per rank and channel, Ampere's plateau of 1.4.
  const double latency = (8.4 + 28 * 3.4 + 2 * 14.0) * 1.4;
  const double bytes = 64.0 * 16 * 16;
  EXPECT_NEAR(ncclRingModelSeconds(twoA100Nodes(), Protocol::Simple, bytes),
              (latency + bytes / (1000 * 200 * 16.0 / 30)) * 1e-6, 1e-12);
  // Below it, no plateau.
  EXPECT_NEAR(ncclRingModelSeconds(twoA100Nodes(), Protocol::Simple, 1024),
              (8.4 + 28 * 3.4 + 2 * 14.0 + 1024 / (1000 * 200 * 16.0 / 30)) * 1e-6, 1e-12);
}

TEST(NcclTuningModel, ReduceScatterAndAllGatherRingsGoRoundOnceWithoutThePlateau) {
  // One node under Simple: 8.4 + 7 x 3.4 us; the whole buffer (every rank's block) at 240 x 8 / 7 GB/s.
  const double oneNode = 8.4 + 7 * 3.4 + 1e9 / (1000 * 240 * 8.0 / 7);
  for (CollectiveKind kind : {CollectiveKind::ReduceScatter, CollectiveKind::AllGather})
    EXPECT_NEAR(ncclRingModelSeconds(oneA100Node(), Protocol::Simple, 1e9, kind), oneNode * 1e-6, 1e-12);
  // Two nodes: 15 steps, one of them between nodes, and no plateau at a size that has it for an allreduce.
  const double bytes = 64.0 * 16 * 16;
  EXPECT_NEAR(ncclRingModelSeconds(twoA100Nodes(), Protocol::Simple, bytes, CollectiveKind::AllGather),
              (8.4 + 14 * 3.4 + 14.0 + bytes / (1000 * 200 * 16.0 / 15)) * 1e-6, 1e-12);
}

TEST(NcclTuningModel, ReduceScatterAndAllGatherRunNcclsRingAtEverySize) {
  for (CollectiveKind kind : {CollectiveKind::ReduceScatter, CollectiveKind::AllGather})
    for (double bytes : {1024.0, 1e6, 4e9}) {
      const NcclChoice choice = ncclChoice(twoA100Nodes(), kind, bytes);
      EXPECT_EQ(choice.ncclAlgorithm, NcclAlgorithm::Ring) << toString(kind) << " of " << bytes << " bytes";
      EXPECT_EQ(choice.algorithm.algorithm, &findAlgorithm(kind, "nccl-ring")) << toString(kind);
      EXPECT_DOUBLE_EQ(choice.modelSeconds, ncclRingModelSeconds(twoA100Nodes(), choice.protocol, bytes, kind));
    }
  // LL for a small all-gather across nodes (23.3 us of latency against Simple's 70.0), Simple for a large one.
  EXPECT_EQ(ncclChoice(twoA100Nodes(), CollectiveKind::AllGather, 1024).protocol, Protocol::LL);
  EXPECT_EQ(ncclChoice(twoA100Nodes(), CollectiveKind::AllGather, 4e9).protocol, Protocol::Simple);
}

TEST(NcclTuningModel, TreeTimeIsNcclsChainAndTreeLatencyPlusCorrectedBandwidth) {
  // 2 x (7 NVLink hops + 1 network hop) under LL: 6.8 + 2 (7 x 0.6 + 5.0) = 25.2 us; bandwidth
  // min(200 x 0.92, 16 x 23.6) / 3.8, capped at Intel's 39.0 across two nodes, halved, and corrected at
  // 1 KB (log2(1024 / 64) = 4: 0.9).
  const double busBw = std::min(200 * 0.92, 16 * 23.6) / 3.8;
  const double expected = 25.2 + 1024 / (1000 * std::min(busBw, 39.0) * 0.5 * 0.9);
  EXPECT_NEAR(ncclTreeModelSeconds(twoA100Nodes(), Protocol::LL, 1024), expected * 1e-6, 1e-12);
}

TEST(NcclTuningModel, ChoosesLowLatencyForSmallMessagesAndSimpleForLargeOnes) {
  EXPECT_EQ(ncclChoice(oneA100Node(), CollectiveKind::Allreduce, 1024).protocol, Protocol::LL);
  EXPECT_EQ(ncclChoice(oneA100Node(), CollectiveKind::Allreduce, 4e9).protocol, Protocol::Simple);
  const NcclChoice large = ncclChoice(twoA100Nodes(), CollectiveKind::Allreduce, 4e9);
  EXPECT_EQ(large.algorithm.algorithm->name, "nccl-ring");
  EXPECT_EQ(large.algorithm.options.channels, 16);
  EXPECT_EQ(large.algorithm.options.ranksPerNode, 8);
  EXPECT_EQ(large.label(), "nccl-ring 16 channels, 8 per node, simple");
  for (double bytes : {1e3, 1e5, 1e7, 1e9}) {
    const NcclChoice choice = ncclChoice(twoA100Nodes(), CollectiveKind::Allreduce, bytes);
    for (Protocol protocol : allProtocols())
      EXPECT_LE(choice.modelSeconds, std::min(ncclRingModelSeconds(twoA100Nodes(), protocol, bytes),
                                              ncclTreeModelSeconds(twoA100Nodes(), protocol, bytes)))
          << bytes;
  }
  // Two nodes, 1 KB: NCCL's tree (25 us) beats any ring (30 steps).
  const NcclChoice small = ncclChoice(twoA100Nodes(), CollectiveKind::Allreduce, 1024);
  EXPECT_EQ(small.ncclAlgorithm, NcclAlgorithm::Tree);
  EXPECT_EQ(small.algorithm.algorithm->name, "nccl-tree");
  EXPECT_EQ(small.protocol, Protocol::LL);
  EXPECT_DOUBLE_EQ(small.modelSeconds, ncclTreeModelSeconds(twoA100Nodes(), Protocol::LL, 1024));
}

TEST(NcclTuningModel, AForcedProtocolIsTheOnlyOneConsidered) {
  EXPECT_EQ(ncclChoice(oneA100Node(), CollectiveKind::Allreduce, 1024, Protocol::Simple).protocol, Protocol::Simple);
  EXPECT_EQ(ncclChoice(oneA100Node(), CollectiveKind::Allreduce, 4e9, Protocol::LL).protocol, Protocol::LL);
}

TEST(NcclTuningModel, LL128OnlyWhereNcclEnablesItByDefault) {
  NcclJob pcie = oneA100Node();
  pcie.intraNode = NcclHardware::PCI;
  NcclJob pascal = oneA100Node();
  pascal.computeCapability = 60;
  for (const NcclJob& job : {pcie, pascal}) {
    EXPECT_FALSE(ncclEnables(job, Protocol::LL128));
    EXPECT_TRUE(std::isinf(ncclRingModelSeconds(job, Protocol::LL128, 1e6)));
    for (double bytes : {1e3, 1e6, 1e9}) EXPECT_NE(ncclChoice(job, CollectiveKind::Allreduce, bytes).protocol, Protocol::LL128);
  }
  EXPECT_TRUE(ncclEnables(oneA100Node(), Protocol::LL128));
}

TEST(NcclTuningModel, UsesFewerChannelsWhereEachWouldHaveTooLittleWork) {
  // Simple: 512 threads x 64 bytes of each channel; LL: 512 x 8, times the ranks for a ring.
  const auto ring = NcclAlgorithm::Ring;
  EXPECT_EQ(ncclChannelsFor(oneA100Node(), ring, Protocol::Simple, 16.0 * 512 * 64), 16);
  EXPECT_EQ(ncclChannelsFor(oneA100Node(), ring, Protocol::Simple, 16.0 * 512 * 64 - 1), 15);
  EXPECT_EQ(ncclChannelsFor(oneA100Node(), ring, Protocol::Simple, 256 * 1024), 8);
  EXPECT_EQ(ncclChannelsFor(oneA100Node(), ring, Protocol::LL, 1024), 1);
  EXPECT_EQ(ncclChannelsFor(oneA100Node(), ring, Protocol::LL, 3.0 * 512 * 8 * 8), 3);
  EXPECT_EQ(ncclChannelsFor(oneA100Node(), NcclAlgorithm::Tree, Protocol::LL, 3.0 * 512 * 8), 3);
  EXPECT_EQ(ncclChoice(oneA100Node(), CollectiveKind::Allreduce, 1024).algorithm.options.channels, 1);
}

TEST(NcclTuningModel, RefusesRanksThatDoNotFillTheirNodesEvenly) {
  NcclJob uneven = twoA100Nodes();
  uneven.ranks = 15;
  EXPECT_THROW(ncclChoice(uneven, CollectiveKind::Allreduce, 1024), InvalidArgument);
}

}  // namespace
}  // namespace ddl
