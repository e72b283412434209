// Every algorithm, run by the runtime over MPI on real memory, leaves every rank with the exact result
// (tests/runtime/every_algorithm_exact.hpp); a wait for a peer that never sends ends at its deadline.

#include <mpi.h>

#include <gtest/gtest.h>

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
  // Small pieces, so that large steps are pipelined in many pieces.
  for (const testing::ExactnessResult& result :
       testing::runEveryAlgorithm(world, transport, {DataType::Float32, DataType::BFloat16},
                                  {0, 1, 7, ranks - 1, (1 << 20) + 3}, {64 * 1024, std::chrono::milliseconds(60'000)}))
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

}  // namespace
}  // namespace ddl
