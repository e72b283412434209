// Every allreduce algorithm, run by the runtime over MPI on real memory, leaves every rank with the exact
// sum, for element counts that leave blocks empty, uneven and large; so do reduce-scatter and all-gather.

#include <mpi.h>

#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "runtime/program_runner.hpp"

namespace ddl {
namespace {

int worldSize() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

struct Shape {
  CollectiveKind kind;
  std::string algorithm;
  AlgorithmOptions options;
};

// Every algorithm in a shape that fits this job's rank count.
std::vector<Shape> shapes(int ranks) {
  std::vector<Shape> all;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if (algorithm->options == kNoOptions) all.push_back({algorithm->collective, std::string(algorithm->name), {}});
  all.push_back({CollectiveKind::Allreduce, "double-binary-tree", {.chunkBytes = 64 * 1024}});
  all.push_back({CollectiveKind::Allreduce, "ddl", {.dims = std::vector<int>{ranks}}});
  for (int first = 2; first < ranks; ++first)
    if (ranks % first == 0) {
      all.push_back({CollectiveKind::Allreduce, "ddl", {.dims = std::vector<int>{first, ranks / first}}});
      all.push_back({CollectiveKind::Allreduce, "torus-2d", {.dims = std::vector<int>{first, ranks / first}, .inner = "halving-doubling"}});
      all.push_back({CollectiveKind::Allreduce, "hierarchical", {.ranksPerNode = first, .inner = "double-binary-tree"}});
    }
  all.push_back({CollectiveKind::Allreduce, "hierarchical", {.ranksPerNode = ranks, .inner = "ring"}});
  return all;
}

TEST(MpiRuntime, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  const int ranks = worldSize();
  MpiTransport transport(MPI_COMM_WORLD);
  // Small pieces, so that large steps are pipelined in many pieces.
  ProgramRunner runner(transport, {64 * 1024, std::chrono::milliseconds(60'000)});
  for (DataType type : {DataType::Float32, DataType::BFloat16}) {
    for (const Shape& shape : shapes(ranks)) {
      for (Elements count : {Elements{0}, Elements{1}, Elements{7}, Elements{ranks - 1}, Elements{(1 << 20) + 3}}) {
        const BenchCollective& collective = benchCollective(shape.kind);
        const Schedule schedule = makeSchedule(findAlgorithm(shape.kind, shape.algorithm),
                                               {shape.kind, ranks, count, static_cast<int>(sizeOf(type))}, shape.options);
        std::vector<char> buffer(static_cast<std::size_t>(count) * sizeOf(type) + 1);
        collective.fill(buffer.data(), count, transport.rank(), ranks, type);
        runner.run(schedule.program(transport.rank()), buffer.data(), type);
        std::int64_t wrong = collective.countWrong(buffer.data(), count, transport.rank(), ranks, type);
        MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        EXPECT_EQ(wrong, 0) << schedule.description() << " " << toString(shape.kind) << ", " << ranks << " ranks, "
                            << count << " " << toString(type) << " elements";
      }
    }
  }
}

TEST(MpiTransport, GivesUpOnAPeerThatNeverSendsAtTheDeadline) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  MpiTransport transport(MPI_COMM_WORLD);
  float value = 0;
  if (transport.rank() == 0) {
    // Rank 1 sends nothing on channel 77: the wait must end at its deadline, not block.
    transport.postReceive(1, 77, &value, sizeof value);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THROW(transport.waitSome(start + std::chrono::milliseconds(300)), TransportError);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    // Satisfy the receive before leaving, so the job ends cleanly.
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (transport.rank() == 1) MPI_Send(&value, sizeof value, MPI_BYTE, 0, 77, MPI_COMM_WORLD);
  if (transport.rank() == 0) {
    EXPECT_NO_THROW(transport.waitSome(std::chrono::steady_clock::now() + std::chrono::seconds(30)));
  }
}

}  // namespace
}  // namespace ddl
