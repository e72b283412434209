// The GPU runtime on whatever GPUs are visible: the CUDA peer transport runs every algorithm exactly
// with 2, 4 and 8 ranks (on one GPU, all of them share it), in float32, bfloat16 and float16; and the
// GPU compute emulator occupies the GPU for the time it is given.

#include <chrono>
#include <cstdlib>

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/cuda_error.hpp"
#include "runtime/cuda_peer/cuda_peer_engine.hpp"
#include "runtime/cuda/gpu_compute_emulator.hpp"
#include "runtime/in_process/in_process_job.hpp"
#include "tests/runtime/every_algorithm_exact.hpp"
#include "tests/runtime/gpu/requires_gpu.hpp"

namespace ddl {
namespace {

class CudaPeerTransport : public testing::RequiresGpu, public ::testing::WithParamInterface<int> {};

TEST_P(CudaPeerTransport, EveryAlgorithmLeavesEveryRankWithTheExactResult) {
  const int ranks = GetParam();
  CudaPeerEngine engine(ranks);
  std::vector<testing::ExactnessResult> results;
  runInProcess(ranks, engine, [&](RankContext& context) {
    auto mine = testing::runEveryAlgorithm(context.world, context.transport,
                                           {DataType::Float32, DataType::BFloat16, DataType::Float16},
                                           {0, 1, 7, ranks - 1, (1 << 20) + 3}, {256 * 1024, std::chrono::milliseconds(30'000)});
    if (context.world.rank() == 0) results = std::move(mine);
    return 0;
  });
  ASSERT_FALSE(results.empty());
  for (const testing::ExactnessResult& result : results) EXPECT_EQ(result.wrong, 0) << result.description;
}

INSTANTIATE_TEST_SUITE_P(Ranks, CudaPeerTransport, ::testing::Values(2, 4, 8),
                         [](const ::testing::TestParamInfo<int>& info) { return std::to_string(info.param) + "Ranks"; });

class GpuCompute : public testing::RequiresGpu {};

TEST_F(GpuCompute, PhasesEndAfterTheirTimeAndInOrder) {
  GpuComputeEmulator compute(0);
  const auto start = std::chrono::steady_clock::now();
  compute.start({0.020, 0.0, 0.030});
  compute.waitForPhase(0);
  const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  compute.waitForPhase(2);
  const double last = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(first, 0.020);
  EXPECT_GE(last, 0.050);
  EXPECT_LT(last, 0.5) << "a phase should last its time, not many times it";
}

// Needs no GPU: what ddlrun sets before its first CUDA call, and what it leaves to a user who set it.
TEST(GpuEnvironment, WidensTheWorkQueuesUnlessTheEnvironmentSaysOtherwise) {
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  widenCudaWorkQueues();
  ASSERT_NE(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), nullptr);
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "32");
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
  widenCudaWorkQueues();
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_MAX_CONNECTIONS"), "4");
  unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

}  // namespace
}  // namespace ddl
