// The NCCL transport with its ranks as threads of one process (nccl-threads, no MPI), one GPU each: every
// algorithm is exact on as many ranks as there are GPUs, NCCL's own allreduce (the --baseline nccl figure)
// gives the same sums, and a job of more ranks than GPUs is refused by name before NCCL is asked.

#include <algorithm>
#include <chrono>
#include <string>

#include "common/invalid_argument.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/launch/job_launcher.hpp"
#include "runtime/nccl/nccl_job.hpp"
#include "runtime/transport_buffer.hpp"
#include "tests/runtime/every_algorithm_exact.hpp"
#include "tests/runtime/gpu/requires_gpu.hpp"

namespace ddl {
namespace {

class NcclThreads : public testing::RequiresGpu {
 protected:
  // Up to 4 ranks, one GPU each: 1 on a machine of one GPU.
  static int ranks() { return std::min(cudaDevices(), 4); }
};

TEST_F(NcclThreads, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  const int size = ranks();
  std::vector<testing::ExactnessResult> results;
  const int status = launchNcclThreadsJob({.ranks = size}, [&](RankContext& context) {
    auto mine = testing::runEveryAlgorithm(context.world, context.transport, {DataType::Float32, DataType::BFloat16},
                                           {0, 1, 7, (1 << 20) + 3}, {256 * 1024, std::chrono::milliseconds(30'000)});
    if (context.world.rank() == 0) results = std::move(mine);
    return 0;
  });
  EXPECT_EQ(status, 0);
  ASSERT_FALSE(results.empty());
  for (const testing::ExactnessResult& result : results) EXPECT_EQ(result.wrong, 0) << result.description;
}

TEST_F(NcclThreads, NcclsOwnAllreduceGivesTheSameSums) {
  const int size = ranks();
  std::int64_t wrong = -1;
  const int status = launchNcclThreadsJob({.ranks = size}, [&](RankContext& context) {
    const Elements count = (1 << 20) + 8;
    TransportBuffer buffer(context.transport, static_cast<std::size_t>(count) * 4);
    const BenchCollective& allreduce = benchCollective(CollectiveKind::Allreduce);
    allreduce.fill(buffer.host(), count, context.world.rank(), context.world.size(), DataType::Float32);
    buffer.toTransport(static_cast<std::size_t>(count) * 4);
    if (!context.library || !context.library->available(CollectiveKind::Allreduce, count, DataType::Float32)) return 1;
    context.library->run(CollectiveKind::Allreduce, buffer.data(), count, DataType::Float32);
    buffer.fromTransport(static_cast<std::size_t>(count) * 4);
    const std::int64_t all = context.world.sumOverRanks(
        allreduce.countWrong(buffer.host(), count, context.world.rank(), context.world.size(), DataType::Float32));
    if (context.world.rank() == 0) wrong = all;
    return 0;
  });
  EXPECT_EQ(status, 0);
  EXPECT_EQ(wrong, 0);
}

TEST_F(NcclThreads, MoreRanksThanGpusAreRefusedBeforeNcclIsAsked) {
  const int gpus = cudaDevices();
  try {
    checkJob(findTransport("nccl-threads"), {.ranks = gpus + 1}, 1);
    FAIL() << "checkJob took " << gpus + 1 << " nccl-threads ranks on " << gpus << " GPUs";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("--ranks"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("one GPU per rank"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ddl
