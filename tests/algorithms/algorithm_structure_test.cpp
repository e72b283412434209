// The schedules have the shape their papers describe: who talks to whom, how many messages, how many bytes.

#include <cstdlib>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "algorithms/collectives/binary_tree.hpp"
#include "algorithms/schedule/traffic.hpp"
#include "common/invalid_argument.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

// The option an allreduce of 1024 elements on 16 ranks names in refusing `options`; "none" if it takes them.
std::string refusedField(const std::string& algorithm, const AlgorithmOptions& options) {
  try {
    allreduce(algorithm, 16, 1024, options);
  } catch (const InvalidArgument& error) {
    return error.field();
  }
  return "none";
}

TEST(RingAllreduce, EveryRankSendsTwoPMinusOneBlocksToItsRightNeighbour) {
  const int p = 8;
  const Schedule ring = allreduce("ring", p, 8 * 100);
  for (Rank rank = 0; rank < p; ++rank) {
    const Program program = ring.program(rank);
    const RankTraffic traffic = trafficOf(program, 4);
    EXPECT_EQ(traffic.sends, 2 * (p - 1));
    EXPECT_DOUBLE_EQ(traffic.bytesSent, 2.0 * (p - 1) / p * 800 * 4);
    for (const Step& step : program.steps()) EXPECT_EQ(step.peer, step.sends() ? (rank + 1) % p : (rank + p - 1) % p);
  }
}

// 4 nodes of 8: channel c enters every node at local rank c and leaves it from local rank c − 1, so the 8
// channels leave each node from 8 different ranks (through 8 NICs) and enter it at 8 different ranks.
TEST(NcclRingAllreduce, EachChannelCrossesBetweenNodesFromItsOwnRankOfTheNode) {
  const int p = 32, perNode = 8;
  const Schedule schedule = allreduce("nccl-ring", p, p * 8 * 10, {.ranksPerNode = perNode, .channels = perNode});
  std::set<std::pair<int, int>> crossings;  // (channel, local rank that sends across)
  for (Rank rank = 0; rank < p; ++rank) {
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps()) {
      if (!step.sends() || step.peer / perNode == rank / perNode) continue;
      EXPECT_EQ(rank % perNode, (step.channel + perNode - 1) % perNode) << "rank " << rank << ", channel " << step.channel;
      EXPECT_EQ(step.peer % perNode, step.channel) << "rank " << rank << " to " << step.peer;
      EXPECT_EQ(step.peer / perNode, (rank / perNode + 1) % (p / perNode)) << "rank " << rank << " to " << step.peer;
      crossings.insert({step.channel, rank % perNode});
    }
  }
  EXPECT_EQ(crossings.size(), 8u);
}

// The channels split the buffer: every rank sends what one ring would, 2(P−1)/P of it, in 2(P−1) messages
// per channel, and each channel keeps to its own part.
TEST(NcclRingAllreduce, ChannelsShareOutTheRingsTrafficByParts) {
  const int p = 16, channels = 4;
  const Elements elements = p * channels * 25;
  const Schedule schedule = allreduce("nccl-ring", p, elements, {.ranksPerNode = 4, .channels = channels});
  for (Rank rank = 0; rank < p; ++rank) {
    const Program program = schedule.program(rank);
    const RankTraffic traffic = trafficOf(program, 4);
    EXPECT_EQ(traffic.sends, channels * 2 * (p - 1));
    EXPECT_DOUBLE_EQ(traffic.bytesSent, 2.0 * (p - 1) / p * static_cast<double>(elements) * 4);
    for (const Step& step : program.steps()) {
      const Range part = blockOf({0, elements}, channels, step.channel);
      EXPECT_TRUE(step.range.offset >= part.offset && step.range.offset + step.range.count <= part.offset + part.count)
          << "rank " << rank << ", channel " << step.channel;
    }
  }
}

TEST(NcclRingAllreduce, OneChannelWithOneRankPerNodeIsThePlainRing) {
  const Schedule ring = allreduce("ring", 12, 12 * 7 + 5);
  const Schedule single = allreduce("nccl-ring", 12, 12 * 7 + 5, {.ranksPerNode = 1, .channels = 1});
  for (Rank rank = 0; rank < 12; ++rank) {
    const Program a = ring.program(rank), b = single.program(rank);
    ASSERT_EQ(a.size(), b.size());
    for (StepIndex i = 0; i < a.size(); ++i) {
      const Step &x = a.steps()[static_cast<std::size_t>(i)], &y = b.steps()[static_cast<std::size_t>(i)];
      EXPECT_TRUE(x.kind == y.kind && x.peer == y.peer && x.range == y.range && x.channel == y.channel)
          << "rank " << rank << " step " << i;
    }
  }
}

TEST(NcclRingAllreduce, RefusesChannelsAndNodeSizesItCannotRun) {
  const auto fieldOf = [](const AlgorithmOptions& options) { return refusedField("nccl-ring", options); };
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .channels = 0}), "channels");
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .channels = kMaxChannels + 1}), "channels");
  EXPECT_EQ(fieldOf({.ranksPerNode = 3, .channels = 2}), "ranks-per-node");
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .channels = kMaxChannels}), "none");
}

// 4 nodes of 8, 8 channels: on channel c only local rank c (the head) talks to other nodes, so the channels
// cross between nodes from 8 different ranks; within a node every message goes one step along the chain
// that starts at the head.
TEST(NcclTreeAllreduce, OnlyEachChannelsHeadCrossesBetweenNodesAndTheRestIsAChain) {
  const int p = 32, perNode = 8;
  const Schedule schedule = allreduce("nccl-tree", p, p * 8 * 10, {.ranksPerNode = perNode, .chunkBytes = 256, .channels = perNode});
  std::set<int> heads;
  for (Rank rank = 0; rank < p; ++rank) {
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps()) {
      const int channel = step.channel / 2;  // an up and a down channel for each of NCCL's
      const int head = channel % perNode;
      if (step.peer / perNode != rank / perNode) {
        EXPECT_EQ(rank % perNode, head) << "rank " << rank << " to " << step.peer << ", channel " << channel;
        EXPECT_EQ(step.peer % perNode, head) << "rank " << rank << " to " << step.peer;
        heads.insert(rank % perNode);
      } else {
        const int mine = (rank % perNode - head + perNode) % perNode, theirs = (step.peer % perNode - head + perNode) % perNode;
        EXPECT_EQ(std::abs(mine - theirs), 1) << "rank " << rank << " and " << step.peer << " on channel " << channel;
      }
    }
  }
  EXPECT_EQ(heads.size(), 8u);
}

// Even and odd channels' trees over the nodes differ (the second is the first shifted by one node), so the
// node at the root of one is not at the root of the other; each rank sends each chunk up once and down to
// each child, and nothing on a channel leaves its part of the buffer.
TEST(NcclTreeAllreduce, EvenAndOddChannelsUseTwoTreesEachOnItsOwnPart) {
  const int p = 16, perNode = 2, channels = 2;
  const Elements elements = 2 * 1000;
  const Schedule schedule = allreduce("nccl-tree", p, elements, {.ranksPerNode = perNode, .channels = channels});
  std::set<Rank> roots[channels];
  for (Rank rank = 0; rank < p; ++rank) {
    bool sendsUp[channels] = {false, false};
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps()) {
      const int channel = step.channel / 2;
      if (step.sends() && step.channel % 2 == 0) sendsUp[channel] = true;
      const Range part = blockOf({0, elements}, channels, channel);
      EXPECT_TRUE(step.range.offset >= part.offset && step.range.offset + step.range.count <= part.offset + part.count)
          << "rank " << rank << ", channel " << channel;
    }
    for (int c = 0; c < channels; ++c)
      if (!sendsUp[c]) roots[c].insert(rank);
  }
  ASSERT_EQ(roots[0].size(), 1u);
  ASSERT_EQ(roots[1].size(), 1u);
  EXPECT_NE(*roots[0].begin() / perNode, *roots[1].begin() / perNode);
}

TEST(NcclTreeAllreduce, RefusesChannelsNodeSizesAndChunksItCannotRun) {
  const auto fieldOf = [](const AlgorithmOptions& options) { return refusedField("nccl-tree", options); };
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .channels = 0}), "channels");
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .channels = kMaxChannels + 1}), "channels");
  EXPECT_EQ(fieldOf({.ranksPerNode = 3, .channels = 2}), "ranks-per-node");
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .chunkBytes = 0, .channels = 2}), "chunk-bytes");
  EXPECT_EQ(fieldOf({.ranksPerNode = 4, .channels = kMaxChannels}), "none");
}

TEST(DdlAllreduce, EachMessageStaysWithinOneDimensionsRing) {
  const std::vector<int> dims{4, 16, 4};
  const Schedule ddl = allreduce("ddl", 256, 102400, {.dims = dims});
  for (Rank rank = 0; rank < 256; ++rank) {
    const Program program = ddl.program(rank);
    for (const Step& step : program.steps()) {
      int differing = 0;
      for (int a = rank, b = step.peer, k = 0; k < 3; a /= dims[k], b /= dims[k], ++k) differing += a % dims[k] != b % dims[k];
      EXPECT_EQ(differing, 1) << "rank " << rank << " and " << step.peer;
    }
  }
}

TEST(DdlAllreduce, OuterDimensionsMoveOnlyTheShardTheInnerOnesLeft) {
  // 4x16x4 on n bytes: each rank sends 2(3/4)n, then 2(15/16)(n/4), then 2(3/4)(n/64).
  const double n = 256.0 * 1000 * 4;
  const RankTraffic traffic = trafficOf(allreduce("ddl", 256, 256 * 1000, {.dims = std::vector<int>{4, 16, 4}}).program(77), 4);
  EXPECT_EQ(traffic.sends, 2 * (3 + 15 + 3));
  EXPECT_DOUBLE_EQ(traffic.bytesSent, 2 * (0.75 * n + 15.0 / 16 * n / 4 + 0.75 * n / 64));
}

TEST(HalvingDoublingAllreduce, SendsTwoLgPMessagesAndTwicePMinusOneOverPOfTheBuffer) {
  const int p = 32;
  const Schedule schedule = allreduce("halving-doubling", p, 32 * 64);
  for (Rank rank = 0; rank < p; ++rank) {
    const RankTraffic traffic = trafficOf(schedule.program(rank), 4);
    EXPECT_EQ(traffic.sends, 10);
    EXPECT_DOUBLE_EQ(traffic.bytesSent, 2.0 * 31 / 32 * 32 * 64 * 4);
  }
}

TEST(HalvingDoublingAllreduce, FoldsTheRanksBeyondAPowerOfTwoIntoTheirNeighbours) {
  // 6 ranks: ranks 0 and 2 hand their buffers to 1 and 3 and wait; 1, 3, 4, 5 run the 4-rank algorithm.
  const Schedule schedule = allreduce("halving-doubling", 6, 60);
  for (Rank idle : {0, 2}) {
    const Program program = schedule.program(idle);
    ASSERT_EQ(program.size(), 2);
    EXPECT_EQ(program.step(0).kind, StepKind::Send);
    EXPECT_EQ(program.step(1).kind, StepKind::ReceiveCopy);
    EXPECT_EQ(program.step(0).peer, idle + 1);
  }
  EXPECT_EQ(schedule.program(1).size(), 2 + 2 * 2 * 2);
}

TEST(RecursiveDoublingAllreduce, ExchangesTheWholeBufferLgPTimes) {
  const RankTraffic traffic = trafficOf(allreduce("recursive-doubling", 16, 1000).program(5), 4);
  EXPECT_EQ(traffic.sends, 4);
  EXPECT_DOUBLE_EQ(traffic.bytesSent, 4 * 4000.0);
}

TEST(BinomialTreeAllreduce, RankZeroReceivesFromEachPowerOfTwoAndSendsBackToEach) {
  const Program root = allreduce("binomial-tree", 16, 10).program(0);
  std::vector<Rank> from, to;
  for (const Step& step : root.steps()) (step.sends() ? to : from).push_back(step.peer);
  EXPECT_EQ(from, (std::vector<Rank>{1, 2, 4, 8}));
  EXPECT_EQ(to, (std::vector<Rank>{8, 4, 2, 1}));
}

TEST(DoubleBinaryTreeAllreduce, NoRankIsAnInnerNodeOfBothTreesWhenPIsOneLessThanAPowerOfTwo) {
  for (int p : {3, 7, 15, 31, 63, 127}) {
    for (int member = 0; member < p; ++member) {
      const BinaryTreeNode first = inOrderTreeNode(p, member);
      const BinaryTreeNode second = inOrderTreeNode(p, (member + 1) % p);
      const bool innerInFirst = first.left >= 0;
      const bool innerInSecond = second.left >= 0;
      EXPECT_FALSE(innerInFirst && innerInSecond) << "rank " << member << " of " << p;
    }
  }
}

TEST(DoubleBinaryTreeAllreduce, EachTreeCarriesHalfTheBufferOnChannelsOfItsOwn) {
  // Tree t reduces on channel 2t and broadcasts on channel 2t + 1.
  const Schedule schedule = allreduce("double-binary-tree", 8, 2 * 1024, {.chunkBytes = 4096});
  for (Rank rank = 0; rank < 8; ++rank) {
    const Program program = schedule.program(rank);
    for (StepIndex i = 0; i < program.size(); ++i) {
      const Step& step = program.step(i);
      EXPECT_EQ(step.channel / 2, step.range.offset < 1024 ? 0 : 1) << program.describe(i);
      if (step.kind != StepKind::Send) {
        EXPECT_EQ(step.channel % 2, step.kind == StepKind::ReceiveReduce ? 0 : 1) << program.describe(i);
      }
    }
  }
}

TEST(InOrderBinaryTree, SubtreesAreContiguousAndDepthIsFloorLgP) {
  for (int p : {1, 2, 5, 8, 13, 64, 100}) {
    int deepest = 0;
    for (int position = 0; position < p; ++position) {
      int depth = 0;
      for (int at = position; inOrderTreeNode(p, at).parent >= 0; at = inOrderTreeNode(p, at).parent) ++depth;
      deepest = std::max(deepest, depth);
      const BinaryTreeNode node = inOrderTreeNode(p, position);
      if (node.left >= 0) {
        EXPECT_LT(node.left, position);
      }
      if (node.right >= 0) {
        EXPECT_GT(node.right, position);
      }
    }
    EXPECT_EQ(deepest, inOrderTreeDepth(p)) << p;
  }
}

TEST(Torus2dAllreduce, WithTheInnerRingIsExactlyDdlOnTheSameGrid) {
  for (const std::vector<int>& grid : std::vector<std::vector<int>>{{4, 8}, {3, 5}, {8, 1}, {1, 6}}) {
    const int p = grid[0] * grid[1];
    const Schedule torus = allreduce("torus-2d", p, 1001, {.dims = grid, .inner = "ring"});
    const Schedule ddl = allreduce("ddl", p, 1001, {.dims = grid});
    for (Rank rank = 0; rank < p; ++rank) EXPECT_EQ(torus.program(rank), ddl.program(rank)) << "rank " << rank;
  }
}

TEST(HierarchicalAllreduce, OnlyNodeLeadersTalkAcrossNodes) {
  const int perNode = 4;
  const Schedule schedule = allreduce("hierarchical", 32, 4096, {.ranksPerNode = perNode, .inner = "halving-doubling"});
  for (Rank rank = 0; rank < 32; ++rank) {
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps()) {
      const bool crossesNodes = step.peer / perNode != rank / perNode;
      EXPECT_TRUE(!crossesNodes || (rank % perNode == 0 && step.peer % perNode == 0)) << rank << " -> " << step.peer;
    }
  }
}

}  // namespace
}  // namespace ddl::testing
