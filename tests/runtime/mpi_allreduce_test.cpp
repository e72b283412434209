// Every algorithm, run by the runtime over MPI on real memory, leaves every rank with the exact result
// (tests/runtime/every_algorithm_exact.hpp); a wait for a peer that never sends ends at its deadline.

#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "runtime/mpi/eager_limit.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "runtime/mpi/mpi_world.hpp"
#include "tests/runtime/every_algorithm_exact.hpp"

namespace ddl {
namespace {

int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

TEST(MpiRuntime, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  const int ranks = worldSize();
  MpiWorld world(MPI_COMM_WORLD);
  MpiTransport transport(MPI_COMM_WORLD);
  // Small pieces, so that large steps are pipelined in many pieces; 5003 elements, so that steps of a few
  // shared-memory eager messages (4032 bytes) are cut into them.
  for (const testing::ExactnessResult& result :
       testing::runEveryAlgorithm(world, transport, {DataType::Float32, DataType::BFloat16},
                                  {0, 1, 7, ranks - 1, 5003, (1 << 20) + 3}, {64 * 1024, std::chrono::milliseconds(60'000)}))
    EXPECT_EQ(result.wrong, 0) << result.description;
}

TEST(MpiTransport, GivesUpOnAPeerThatNeverSendsAtTheDeadline) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  MpiTransport transport(MPI_COMM_WORLD);
  float value = 0;
  if (transport.rank() == 0) {
    // Rank 1 sends nothing on channel 77: the wait must end at its deadline, not block.
    transport.postReceive(1, 77, &value, sizeof value);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(waitSomeWithin(transport, std::chrono::milliseconds(300)), TransportError);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    // Satisfy the receive before leaving, so the job ends cleanly.
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (transport.rank() == 1) MPI_Send(&value, sizeof value, MPI_BYTE, 0, 77, MPI_COMM_WORLD);
  if (transport.rank() == 0) {
    EXPECT_NO_THROW(waitSomeWithin(transport, std::chrono::seconds(30)));
  }
}

// Creating a library's transport is collective: a rank that never comes must end the others' wait at the
// deadline with an error they can handle, not block them in MPI_Comm_dup; and the rank that comes after
// they gave up must not block either, in the duplicate or in what follows it.
TEST(MpiTransport, CreationGivesUpAtItsDeadlineOnARankThatDoesNotCome) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  if (worldSize() > 3) GTEST_SKIP() << "held at 2 and 3 ranks: the same waits, 3 s each";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto patience = std::chrono::milliseconds(500);
  if (rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // after the others gave up
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(MpiTransport::overDuplicateOf(MPI_COMM_WORLD, patience), TransportError) << "rank " << rank;
  EXPECT_LT(std::chrono::steady_clock::now() - start, patience + std::chrono::milliseconds(1500)) << "rank " << rank;
  MPI_Barrier(MPI_COMM_WORLD);
  // Every rank on time: the transport is made, and knows at once which ranks share its memory.
  auto transport = MpiTransport::overDuplicateOf(MPI_COMM_WORLD, std::chrono::seconds(30));
  if (sharedMemoryEagerPayload() > 0) {
    for (Rank peer = 0; peer < worldSize(); ++peer) EXPECT_EQ(transport->eagerBytes(peer), sharedMemoryEagerPayload()) << peer;
  }
}

// Over the library's own duplicate, a message longer than the receive posted for it (ranks that disagree on a
// count) is a TransportError naming the peer, not Open MPI's abort of the job with no word of ours.
TEST(MpiTransport, AMessageLongerThanItsReceiveIsNamedByTheTransport) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  auto transport = MpiTransport::overDuplicateOf(MPI_COMM_WORLD, std::chrono::seconds(30));
  double sent = 1.5;
  float received = 0;
  if (transport->rank() == 1) {
    transport->postSend(0, 5, &sent, sizeof sent);
    EXPECT_NO_THROW(waitSomeWithin(*transport, std::chrono::seconds(30)));
  } else if (transport->rank() == 0) {
    transport->postReceive(1, 5, &received, sizeof received);
    try {
      waitSomeWithin(*transport, std::chrono::seconds(30));
      ADD_FAILURE() << "a receive of 4 bytes took a message of 8";
    } catch (const TransportError& error) {
      EXPECT_NE(std::string(error.what()).find("a message from rank 1 is longer than the receive rank 0 posted for it"),
                std::string::npos)
          << error.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Every rank of a job on one machine shares memory with every other: after reserveChannels each peer
// gets Open MPI's shared-memory eager payload, and before it none (the ranks have not agreed yet).
TEST(MpiTransport, EagerBytesAreTheSharedMemoryLimitBetweenRanksOfOneMachine) {
  const std::size_t payload = sharedMemoryEagerPayload();
  if (payload == 0) GTEST_SKIP() << "this MPI library names no shared-memory eager limit";
  MpiTransport transport(MPI_COMM_WORLD);
  for (Rank peer = 0; peer < worldSize(); ++peer) EXPECT_EQ(transport.eagerBytes(peer), 0u) << peer;
  transport.reserveChannels(1);
  for (Rank peer = 0; peer < worldSize(); ++peer) EXPECT_EQ(transport.eagerBytes(peer), payload) << peer;
  EXPECT_EQ(transport.eagerBytes(worldSize()), 0u);
  // Under Open MPI 4's default limit of 4096 bytes.
  EXPECT_EQ(payload + kEagerHeaderBytes, 4096u);
}

// A post repeated through one RepeatedPost is set up once and started again; where its memory moves, the
// next message lands in the new memory, and forgetting it leaves nothing set up.
TEST(MpiTransport, RepeatedPostsFollowTheirMemory) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  MpiTransport transport(MPI_COMM_WORLD);
  Transport::RepeatedPost post;
  std::vector<float> first(3, 0), second(3, 0);
  const auto exchange = [&](std::vector<float>& memory, float value) {
    if (transport.rank() == 0) {
      std::fill(memory.begin(), memory.end(), value);
      transport.postRepeatedSend(1, 5, memory.data(), memory.size() * sizeof(float), post);
    } else if (transport.rank() == 1) {
      transport.postRepeatedReceive(0, 5, memory.data(), memory.size() * sizeof(float), post);
    }
    if (transport.rank() < 2) waitSomeWithin(transport, std::chrono::seconds(30));
  };
  exchange(first, 1);
  const int slot = post.slot;
  if (transport.rank() < 2) {
    EXPECT_GE(slot, 0);
  }
  exchange(first, 2);  // the same post again
  if (transport.rank() < 2) {
    EXPECT_EQ(post.slot, slot);
  }
  exchange(second, 3);  // the memory moved
  if (transport.rank() == 1) {
    EXPECT_EQ(first, std::vector<float>(3, 2));
    EXPECT_EQ(second, std::vector<float>(3, 3));
  }
  transport.forgetRepeatedPost(post);
  EXPECT_EQ(post.slot, -1);
}

}  // namespace
}  // namespace ddl
