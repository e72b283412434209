// The in-process transport, ranks as threads of one process on host memory: every algorithm exact at
// several rank counts and types; the two sides of a message must agree on its size; a wait for a peer
// that never sends ends at its deadline; under NCCL's group semantics and its lazy connections every
// algorithm still completes exactly, so the NCCL transport's way of grouping messages and connecting peers
// cannot deadlock a schedule (and without connecting first, the double binary tree would); and out of place
// ends as in place where a program's steps straddle what earlier steps wrote.

#include <gtest/gtest.h>

#include <thread>

#include "algorithms/schedule/program_builder.hpp"
#include "runtime/in_process/host_engine.hpp"
#include "runtime/in_process/in_process_job.hpp"
#include "runtime/in_process/in_process_transport.hpp"
#include "tests/runtime/every_algorithm_exact.hpp"
#include "tests/runtime/nccl_group_semantics.hpp"

namespace ddl {
namespace {

// Small pieces, so that large steps are pipelined in many pieces.
constexpr RunOptions kRun{16 * 1024, std::chrono::milliseconds(20'000)};

std::vector<Elements> countsFor(int ranks) { return {0, 1, 7, ranks - 1, (1 << 16) + 3}; }

class EveryRankCount : public ::testing::TestWithParam<int> {};

TEST_P(EveryRankCount, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  const int ranks = GetParam();
  HostEngine engine;
  std::vector<testing::ExactnessResult> results;
  runInProcess(ranks, engine, [&](RankContext& context) {
    auto mine = testing::runEveryAlgorithm(context.world, context.transport,
                                           {DataType::Float32, DataType::BFloat16, DataType::Float16}, countsFor(ranks), kRun);
    if (context.world.rank() == 0) results = std::move(mine);
    return 0;
  });
  ASSERT_FALSE(results.empty());
  for (const testing::ExactnessResult& result : results) EXPECT_EQ(result.wrong, 0) << result.description;
}

// NCCL's groups, and its connections made lazily inside ncclGroupEnd: the peers connected first
// (Transport::connectPeers, from reserveChannels), no rank ever waits there for a peer that waits for it.
TEST_P(EveryRankCount, UnderNcclGroupSemanticsEveryAlgorithmCompletesExactly) {
  const int ranks = GetParam();
  HostEngine engine;
  testing::LazyConnections connections(std::chrono::milliseconds(5000));
  std::vector<testing::ExactnessResult> results;
  runInProcess(ranks, engine, [&](RankContext& context) {
    testing::NcclGroupSemantics grouped(context.transport, &connections);
    auto mine = testing::runEveryAlgorithm(context.world, grouped, {DataType::Float32}, countsFor(ranks), kRun);
    if (context.world.rank() == 0) results = std::move(mine);
    return 0;
  });
  ASSERT_FALSE(results.empty());
  for (const testing::ExactnessResult& result : results) EXPECT_EQ(result.wrong, 0) << result.description;
  EXPECT_EQ(connections.stalls(), 0);
}

// Why the peers are connected first: the double binary tree's two trees run on two channels, and a rank
// that issues its first message on one channel waits inside ncclGroupEnd for a peer whose first message is
// on the other, which waits for it. Issued a channel at a time without connecting first, it stalls.
TEST(NcclLazyConnections, WithoutConnectingFirstTheDoubleBinaryTreeStalls) {
  for (const int ranks : {4, 8}) {
    HostEngine engine;
    testing::LazyConnections connections(std::chrono::milliseconds(200));
    runInProcess(ranks, engine, [&](RankContext& context) {
      testing::NcclGroupSemantics grouped(context.transport, &connections, false);
      const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "double-binary-tree"),
                                             {CollectiveKind::Allreduce, ranks, 1 << 12, 4}, {});
      const Program program = schedule.program(context.world.rank());
      reserveChannels(context.world, grouped, std::span(&program, 1));
      TransportBuffer buffer(grouped, std::size_t{4} << 12);
      ProgramRunner(grouped, kRun).run(program, buffer.data(), DataType::Float32);
      return 0;
    });
    EXPECT_GT(connections.stalls(), 0) << ranks << " ranks";
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, EveryRankCount, ::testing::Values(1, 2, 3, 4, 5, 6, 8, 12),
                         [](const ::testing::TestParamInfo<int>& info) { return std::to_string(info.param) + "Ranks"; });

// Two ranks whose steps read ranges that straddle a write (rank 0 sends [0, 8) after receiving [0, 4)), and
// leave ranges unwritten ([4, 6) on rank 0, [8, 10) on rank 1): no algorithm of the registry does either,
// and out of place must still end exactly as in place.
Program straddling(Rank rank) {
  ProgramBuilder builder(rank, 10);
  if (rank == 0) {
    builder.receiveCopy(1, {0, 4});
    builder.send(1, {0, 8});
    builder.receiveReduce(1, {6, 4});
  } else {
    builder.send(0, {0, 4});
    builder.receiveCopy(0, {0, 8});
    builder.send(0, {6, 4});
  }
  return std::move(builder).finish();
}

TEST(InProcessTransport, OutOfPlaceLeavesWhatInPlaceLeavesWhereStepsStraddleWrites) {
  HostEngine engine;
  std::vector<std::vector<float>> inPlace(2), outOfPlace(2), inputAfter(2);
  runInProcess(2, engine, [&](RankContext& context) {
    const Rank rank = context.world.rank();
    std::vector<float> input(10), buffer, output(10, -1.0f);
    for (int i = 0; i < 10; ++i) input[static_cast<std::size_t>(i)] = static_cast<float>(100 * (rank + 1) + i);
    buffer = input;
    ProgramRunner runner(context.transport, kRun);
    const Program program = straddling(rank);
    runner.run(program, buffer.data(), DataType::Float32);
    runner.run(program, input.data(), output.data(), DataType::Float32);
    inPlace[static_cast<std::size_t>(rank)] = buffer;
    outOfPlace[static_cast<std::size_t>(rank)] = output;
    inputAfter[static_cast<std::size_t>(rank)] = input;
    return 0;
  });
  // Rank 0 by hand: [0, 4) rank 1's, [4, 6) its own, [6, 8) its own twice (rank 1 holds rank 0's values
  // there when it sends them back), [8, 10) both ranks'.
  EXPECT_EQ(inPlace[0], (std::vector<float>{200, 201, 202, 203, 104, 105, 212, 214, 316, 318}));
  for (Rank rank : {0, 1}) {
    EXPECT_EQ(outOfPlace[static_cast<std::size_t>(rank)], inPlace[static_cast<std::size_t>(rank)]) << "rank " << rank;
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(inputAfter[static_cast<std::size_t>(rank)][static_cast<std::size_t>(i)], static_cast<float>(100 * (rank + 1) + i))
          << "rank " << rank << " changed its input at " << i;
  }
}

TEST(InProcessTransport, MessagesMoveOnlyWhenBothSidesArePostedInOrderPerChannel) {
  HostEngine engine;
  InProcessFabric fabric(2, engine);
  InProcessTransport sender(fabric, 0), receiver(fabric, 1);
  const float first = 1.5f, second = 2.5f, other = 3.5f;
  float got[3] = {0, 0, 0};
  sender.postSend(1, 0, &first, sizeof first);
  sender.postSend(1, 1, &other, sizeof other);
  sender.postSend(1, 0, &second, sizeof second);
  EXPECT_EQ(got[0], 0.0f) << "nothing moves before the receive is posted";
  // Channel 1's message is matched by channel, not by posting order.
  receiver.postReceive(0, 1, &got[2], sizeof(float));
  receiver.postReceive(0, 0, &got[0], sizeof(float));
  receiver.postReceive(0, 0, &got[1], sizeof(float));
  std::size_t finished = 0;
  while (finished < 3) finished += waitSomeWithin(receiver, std::chrono::seconds(5)).size();
  EXPECT_EQ(got[0], first);
  EXPECT_EQ(got[1], second);
  EXPECT_EQ(got[2], other);
}

TEST(InProcessTransport, BothSidesFailWhenTheyDisagreeOnAMessagesSize) {
  HostEngine engine;
  InProcessFabric fabric(2, engine);
  InProcessTransport sender(fabric, 0), receiver(fabric, 1);
  double data[2] = {1, 2};
  sender.postSend(1, 3, data, sizeof data);
  try {
    receiver.postReceive(0, 3, data, sizeof(double));
    FAIL() << "a 16-byte send matched an 8-byte receive";
  } catch (const TransportError& error) {
    EXPECT_NE(std::string(error.what()).find("sends 16 bytes to rank 1 on channel 3, which receives 8"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(waitSomeWithin(sender, std::chrono::seconds(5)), TransportError);
}

TEST(InProcessTransport, GivesUpOnAPeerThatNeverSendsAtTheDeadline) {
  HostEngine engine;
  InProcessFabric fabric(2, engine);
  InProcessTransport receiver(fabric, 1);
  float value = 0;
  receiver.postReceive(0, 0, &value, sizeof value);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(waitSomeWithin(receiver, std::chrono::milliseconds(200)), TransportError);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

TEST(InProcessTransport, AWaitingRankWakesWhenItsPeerPostsFromAnotherThread) {
  HostEngine engine;
  InProcessFabric fabric(2, engine);
  InProcessTransport sender(fabric, 0), receiver(fabric, 1);
  float sent = 42, received = 0;
  receiver.postReceive(0, 0, &received, sizeof received);
  std::thread peer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sender.postSend(1, 0, &sent, sizeof sent);
  });
  EXPECT_EQ(waitSomeWithin(receiver, std::chrono::seconds(10)).size(), 1u);
  EXPECT_EQ(received, sent);
  peer.join();
}

}  // namespace
}  // namespace ddl
