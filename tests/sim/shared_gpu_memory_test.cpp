// Ranks that share one GPU (the CUDA peer transport on a single GPU) share its memory: every copy between
// them and every reduction they make draws on one bandwidth. Simulated, a ring allreduce over P such ranks
// then moves each step's P blocks one after another's worth of time: a step costs the whole buffer over
// the memory bandwidth, not one block.

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "sim/simgrid/collective_on_simgrid.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

constexpr double kMemoryBps = 1e12;
constexpr double kReduceBps = 0.5e12;
constexpr double kPortLatency = 1e-6;
constexpr double kMemoryLatency = 0.5e-6;

Topology oneGpu(int ranks) {
  Topology topology;
  topology.name = "one-gpu";
  topology.node.gpuModel = "test";
  topology.node.gpus = ranks;
  topology.node.portBandwidthBps = 100 * kMemoryBps;  // never the bottleneck
  topology.node.portLatencySeconds = kPortLatency;
  topology.node.reduceBps = kReduceBps;
  topology.node.sharedMemory = NodeTopology::SharedMemory{kMemoryBps, kMemoryLatency};
  for (int gpu = 0; gpu < ranks; ++gpu) topology.node.rankOrder.push_back(gpu);
  topology.nicsUsed = 0;
  return topology;
}

TEST(SharedGpuMemory, RingAllreduceStepsCostTheWholeBufferOverTheMemoryBandwidth) {
  for (int ranks : {2, 4, 8}) {
    const Cluster cluster(oneGpu(ranks), ranks, Placement::Packed);
    const Elements elements = Elements{1} << 20;
    const CollectiveSpec spec{CollectiveKind::Allreduce, ranks, elements, 4};
    const double bytes = 4.0 * static_cast<double>(elements);
    const CollectiveTiming simulated = simulateCollective(makeSchedule(findAlgorithm(spec.kind, "ring"), spec, {}), cluster);
    // Each step, all ranks copy a block at once: P blocks, the whole buffer, through the memory. In the
    // reduce-scatter each rank then reduces its block, P blocks again, at the reduce rate.
    const double copy = 2 * kPortLatency + kMemoryLatency + bytes / kMemoryBps;
    const double reduce = kMemoryLatency + bytes / kReduceBps;
    const double expected = (ranks - 1) * (copy + reduce) + (ranks - 1) * copy;
    EXPECT_NEAR(simulated.seconds, expected, 1e-6 * expected) << ranks << " ranks";
  }
}

TEST(SharedGpuMemory, ReductionsAreMemoryTrafficOnlyWhereTheMemoryIsShared) {
  const Cluster shared(oneGpu(4), 4, Placement::Packed);
  const std::optional<ReductionTraffic> traffic = shared.reductionTraffic(2);
  ASSERT_TRUE(traffic.has_value());
  EXPECT_EQ(traffic->sinkHost, "n0-memory");
  ASSERT_EQ(traffic->route.size(), 1u);
  EXPECT_EQ(shared.link(traffic->route[0].link).sharing, LinkSharing::BothDirections);
  EXPECT_DOUBLE_EQ(traffic->bytesPerReducedByte, kMemoryBps / kReduceBps);

  Topology separate = oneGpu(4);
  separate.node.sharedMemory.reset();
  separate.node.devices = {"switch"};
  for (int gpu = 0; gpu < 4; ++gpu) separate.node.links.push_back({"l" + std::to_string(gpu), NodeTopology::gpuName(gpu), "switch", 1e11, 1e-6});
  EXPECT_FALSE(Cluster(separate, 4, Placement::Packed).reductionTraffic(2).has_value());
}

}  // namespace
}  // namespace ddl
