// nccl-nvls-tree: NCCL's NVLS-tree allreduce. Each node's NVSwitch is a participant after the ranks that sums
// the node's loads of every shard; the shard's head GPU reduces the nodes' sums up a tree over the nodes, back
// down, and stores the total through its switch.

#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/cost/schedule_walk.hpp"
#include "algorithms/schedule/traffic.hpp"
#include "algorithms/verify/verifier.hpp"
#include "common/invalid_argument.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

Schedule nvlsTree(int ranks, int perNode, Elements elements, AlgorithmOptions options = {}) {
  options.ranksPerNode = perNode;
  return allreduce("nccl-nvls-tree", ranks, elements, options);
}

TEST(NcclNvlsTree, HasOneSwitchPerNodeThatServesOnlyItsNode) {
  const Schedule schedule = nvlsTree(24, 8, 1 << 20, {.channels = 2});
  EXPECT_EQ(schedule.spec().switches, 3);
  EXPECT_EQ(schedule.participants(), 27);
  for (Rank participant = 0; participant < schedule.participants(); ++participant) {
    const Program program = schedule.program(participant);
    for (const Step& step : program.steps()) {
      const Rank gpu = participant < 24 ? participant : step.peer;
      const Rank other = participant < 24 ? step.peer : participant;
      if (other >= 24) {
        EXPECT_EQ(other - 24, gpu / 8) << "participant " << participant << " talks to switch " << other - 24;
      }
    }
  }
}

TEST(NcclNvlsTree, OnlyAShardsHeadsTalkAcrossNodes) {
  // Shard m of every chunk crosses the network between local ranks m alone: each head on its own NIC.
  const Schedule schedule = nvlsTree(32, 4, 1 << 16, {.channels = 3});
  for (Rank rank = 0; rank < 32; ++rank) {
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps()) {
      if (step.peer >= 32) continue;  // its node's switch
      EXPECT_NE(step.peer / 4, rank / 4) << "rank " << rank << " talks to its own node's " << step.peer << ", not through the switch";
      EXPECT_EQ(step.peer % 4, rank % 4) << "rank " << rank << " talks to another shard's head " << step.peer;
    }
  }
}

TEST(NcclNvlsTree, VerifiesAtEveryShapeChannelCountAndAwkwardSize) {
  for (int nodes : {2, 3, 4, 5})
    for (int perNode : {1, 2, 3, 4})
      for (int channels : {1, 2, 3})
        for (Elements elements : elementCountsFor(nodes * perNode))
          for (std::int64_t shard : {std::int64_t{4096}, std::int64_t{128 * 1024}}) {
            const Schedule schedule = nvlsTree(nodes * perNode, perNode, elements, {.chunkBytes = shard, .channels = channels});
            const VerificationReport report = verify(schedule);
            EXPECT_TRUE(report.ok()) << schedule.description() << " on " << nodes << " nodes, " << elements << " elements: "
                                     << report.message;
          }
}

TEST(NcclNvlsTree, EachNicCarriesItsShardOnceEachWayOnTwoNodes) {
  // On two nodes one node sends its sum up and receives the total back, or the other way round, per tree:
  // every GPU sends and receives the buffer over its ranks per node across the network, where a ring's
  // GPUs at the node boundary carry the whole buffer twice. Within the node, nccl-nvls's S (1 + 1/N) each way.
  constexpr int kPerNode = 8;
  constexpr Elements kElements = kPerNode * 1024 * 64;
  const Schedule schedule = nvlsTree(2 * kPerNode, kPerNode, kElements, {.channels = 2});
  const double buffer = kElements * 4.0;
  for (const RankTraffic& rank : trafficPerRank(schedule)) {
    EXPECT_DOUBLE_EQ(rank.bytesSent, buffer * (1 + 1.0 / kPerNode) + buffer / kPerNode) << "rank " << rank.rank;
    EXPECT_DOUBLE_EQ(rank.bytesReceived, buffer * (1 + 1.0 / kPerNode) + buffer / kPerNode) << "rank " << rank.rank;
  }
}

// The largest message a GPU sends its switch: a shard.
std::int64_t largestShardBytes(const Schedule& schedule) {
  const Program program = schedule.program(0);
  Elements largest = 0;
  for (const Step& step : program.steps())
    if (step.peer >= schedule.ranks()) largest = std::max(largest, step.range.count);
  return largest * 4;
}

TEST(NcclNvlsTree, TakesNcclsShardOf128KiBAnd64KiBFromFourNodes) {
  constexpr Elements kElements = Elements{1} << 22;  // 16 MiB: many shards on one channel
  EXPECT_EQ(largestShardBytes(nvlsTree(16, 8, kElements)), 128 * 1024);
  EXPECT_EQ(largestShardBytes(nvlsTree(24, 8, kElements)), 128 * 1024);
  EXPECT_EQ(largestShardBytes(nvlsTree(32, 8, kElements)), 64 * 1024);
  EXPECT_EQ(largestShardBytes(nvlsTree(32, 8, kElements, {.chunkBytes = 4096})), 4096) << "unless --chunk-bytes says";
}

TEST(NcclNvlsTree, RunsAcrossNodesOnly) {
  EXPECT_THROW(nvlsTree(8, 8, 1024), InvalidArgument) << "one node runs nccl-nvls";
  EXPECT_THROW(nvlsTree(12, 8, 1024), InvalidArgument) << "8 per node does not divide 12";
  EXPECT_THROW(nvlsTree(16, 8, 1024, {.chunkBytes = 0}), InvalidArgument);
  try {
    nvlsTree(2048, 1024, 1024, {.channels = 32});  // 32 x (2 x 1024 + 16) connections
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "channels");
  }
}

TEST(NcclNvlsTree, ItsTimeIsItsScheduleWalk) {
  const CollectiveSpec spec{CollectiveKind::Allreduce, 8, 3 * 8 * 4096 + 5, 4};
  const AlgorithmOptions options{.ranksPerNode = 4, .chunkBytes = 16384, .channels = 2};
  const CostModel model({8}, {LinkCost{1.3e-6, 1 / 37e9}}, 1 / 200e9);
  const double walk = walkSeconds(makeSchedule(kNcclNvlsTreeAllreduce, spec, options), model);
  EXPECT_GT(walk, 0);
  EXPECT_DOUBLE_EQ(kNcclNvlsTreeAllreduce.closedFormSeconds(spec, options, model), walk);
}

}  // namespace
}  // namespace ddl::testing
