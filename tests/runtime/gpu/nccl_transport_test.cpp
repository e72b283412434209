// The NCCL transport under mpirun, one GPU per rank (with one GPU: one rank). Every algorithm is exact,
// and NCCL's own allreduce, the --baseline nccl figure, gives the same sums.

#include <mpi.h>

#include <memory>

#include "runtime/mpi/mpi_world.hpp"
#include "runtime/nccl/nccl_collectives.hpp"
#include "runtime/nccl/nccl_mpi_bootstrap.hpp"
#include "runtime/nccl/nccl_transport.hpp"
#include "tests/runtime/every_algorithm_exact.hpp"
#include "tests/runtime/gpu/requires_gpu.hpp"

namespace ddl {
namespace {

class NcclRuntime : public testing::RequiresGpu {
 protected:
  void SetUp() override {
    RequiresGpu::SetUp();
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (!IsSkipped() && ranks > cudaDevices()) GTEST_SKIP() << "NCCL needs a GPU per rank: " << ranks << " ranks";
  }
};

TEST_F(NcclRuntime, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  MpiWorld world(MPI_COMM_WORLD);
  NcclTransport transport(std::make_unique<NcclMpiBootstrap>(MPI_COMM_WORLD));
  for (const testing::ExactnessResult& result :
       testing::runEveryAlgorithm(world, transport, {DataType::Float32, DataType::BFloat16}, {0, 1, 7, (1 << 20) + 3},
                                  {256 * 1024, std::chrono::milliseconds(30'000)}))
    EXPECT_EQ(result.wrong, 0) << result.description;
}

TEST_F(NcclRuntime, NcclsOwnAllreduceGivesTheSameSums) {
  MpiWorld world(MPI_COMM_WORLD);
  NcclTransport transport(std::make_unique<NcclMpiBootstrap>(MPI_COMM_WORLD));
  NcclCollectives nccl(transport);
  const Elements count = (1 << 20) + 8;
  TransportBuffer buffer(transport, static_cast<std::size_t>(count) * 4);
  const BenchCollective& allreduce = benchCollective(CollectiveKind::Allreduce);
  allreduce.fill(buffer.host(), count, world.rank(), world.size(), DataType::Float32);
  buffer.toTransport(static_cast<std::size_t>(count) * 4);
  ASSERT_TRUE(nccl.available(CollectiveKind::Allreduce, count, DataType::Float32));
  nccl.run(CollectiveKind::Allreduce, buffer.data(), count, DataType::Float32);
  buffer.fromTransport(static_cast<std::size_t>(count) * 4);
  EXPECT_EQ(world.sumOverRanks(allreduce.countWrong(buffer.host(), count, world.rank(), world.size(), DataType::Float32)), 0);
}

}  // namespace
}  // namespace ddl
