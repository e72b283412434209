// libddlscale's communicators of GPU memory (ddl_comm_init_nccl) under mpirun, one GPU per rank: every
// allreduce algorithm that fits leaves every rank's device buffer with the exact sum, in place and out of
// place; requests complete; a broadcast and an all-gather move device bytes; a host buffer is refused before
// anything runs. Where no GPU is visible (CI), every rank is told DDL_UNSUPPORTED alike, which is the one
// case that runs there.
//
//   mpirun -np P library_nccl_tests          (P GPUs: NCCL refuses two ranks on one GPU)
// MPI without MPI_THREAD_MULTIPLE (mpi_test_main.cpp): the collectives run in the caller's thread, on the
// GPU that ddl_comm_init_nccl made current there.

#include <cuda_runtime_api.h>
#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ddlscale/ddlscale.h"
#include "runtime/cuda/cuda_devices.hpp"
#include "tests/runtime/library_test_support.hpp"

namespace {

// This process's place in the MPI job: what a rank of `comm` is, or how many there are.
int placeIn(int (*ask)(MPI_Comm, int*)) {
  int value = 0;
  ask(MPI_COMM_WORLD, &value);
  return value;
}

TEST(LibraryNccl, WithoutAGpuEveryRankIsToldUnsupported) {
  if (ddl::cudaDevices() > 0) GTEST_SKIP() << "a GPU is visible: the communicator is made (LibraryNcclOnGpu)";
  ddl_comm comm = nullptr;
  EXPECT_EQ(ddl_comm_init_nccl(MPI_COMM_WORLD, &comm), DDL_UNSUPPORTED);
  EXPECT_NE(std::string(ddl_last_error()).find("ddl_comm_init_nccl: this rank sees no CUDA GPU"), std::string::npos)
      << ddl_last_error();
  EXPECT_EQ(comm, nullptr);
}

// A device buffer of floats, filled from and read back to the host.
class DeviceFloats {
 public:
  explicit DeviceFloats(std::size_t count) : count_(count) { EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()), cudaSuccess); }
  ~DeviceFloats() { cudaFree(data_); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  float* data() { return data_; }
  // Queued on the default stream and not waited for, as a framework's kernel that writes a bucket would be:
  // the collective called next must run after it (ddlscale.h).
  void fill(const std::vector<float>& values) {
    EXPECT_EQ(cudaMemcpyAsync(data_, values.data(), bytes(), cudaMemcpyHostToDevice, cudaStreamLegacy), cudaSuccess);
  }
  std::vector<float> read() const {
    std::vector<float> values(count_);
    EXPECT_EQ(cudaMemcpy(values.data(), data_, bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    return values;
  }

 private:
  std::size_t bytes() const { return count_ * sizeof(float); }
  std::size_t count_;
  float* data_ = nullptr;
};

class LibraryNcclOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    const int gpus = ddl::cudaDevices(&why);
    if (gpus == 0) GTEST_SKIP() << "no CUDA GPU here (" << why << "): GPU test skipped";
    if (size_ > gpus) GTEST_SKIP() << "NCCL needs a GPU per rank: " << size_ << " ranks, " << gpus << " GPUs";
    ASSERT_EQ(ddl_comm_init_nccl(MPI_COMM_WORLD, &comm_), DDL_SUCCESS) << ddl_last_error();
  }
  void TearDown() override { EXPECT_EQ(ddl_comm_destroy(comm_), DDL_SUCCESS); }
  ddl_comm comm_ = nullptr;
  const int rank_ = placeIn(MPI_Comm_rank);
  const int size_ = placeIn(MPI_Comm_size);
};

using ddl::testing::valueOf;

TEST_F(LibraryNcclOnGpu, EveryAllreduceAlgorithmThatFitsSumsDeviceBuffersExactly) {
  const int ran = ddl::testing::forEachAllreduceAlgorithmWithoutOptions(comm_, [&](const std::string& name) {
    for (const std::size_t count : {std::size_t{1}, std::size_t{4099}, std::size_t{1} << 20})
      for (const bool inPlace : {true, false}) {
        std::vector<float> mine(count);
        for (std::size_t i = 0; i < count; ++i) mine[i] = valueOf(i, rank_);
        DeviceFloats send(count), recv(count);
        send.fill(mine);
        float* out = inPlace ? send.data() : recv.data();
        ddl_request request = nullptr;
        ASSERT_EQ(ddl_iallreduce(comm_, send.data(), out, count, DDL_FLOAT32, DDL_SUM, &request), DDL_SUCCESS) << ddl_last_error();
        ASSERT_EQ(ddl_wait(request), DDL_SUCCESS) << ddl_last_error();
        const std::vector<float> got = (inPlace ? send : recv).read();
        int wrong = 0;
        for (std::size_t i = 0; i < count; ++i) {
          float sum = 0;
          for (int r = 0; r < size_; ++r) sum += valueOf(i, r);
          wrong += got[i] != sum;
        }
        if (!inPlace) wrong += send.read() != mine;
        EXPECT_EQ(wrong, 0) << name << ", " << count << " elements, " << (inPlace ? "in place" : "out of place");
      }
  });
  EXPECT_GE(ran, 3) << "ring, recursive doubling and the binomial tree take any rank count";
}

TEST_F(LibraryNcclOnGpu, ABroadcastAndAnAllGatherMoveDeviceBytes) {
  constexpr std::size_t kCount = 100003;
  std::vector<float> rootValues(kCount);
  for (std::size_t i = 0; i < kCount; ++i) rootValues[i] = std::ldexp(static_cast<float>(i % 977), -7);
  DeviceFloats buffer(kCount);
  buffer.fill(rank_ == 0 ? rootValues : std::vector<float>(kCount, -1.0f));
  ASSERT_EQ(ddl_broadcast(comm_, buffer.data(), kCount, DDL_FLOAT32, 0), DDL_SUCCESS) << ddl_last_error();
  EXPECT_TRUE(buffer.read() == rootValues);

  DeviceFloats mine(1), gathered(static_cast<std::size_t>(size_));
  mine.fill({static_cast<float>(rank_)});
  ASSERT_EQ(ddl_allgather(comm_, mine.data(), gathered.data(), 1, DDL_FLOAT32), DDL_SUCCESS) << ddl_last_error();
  const std::vector<float> all = gathered.read();
  for (int r = 0; r < size_; ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], static_cast<float>(r));
  EXPECT_EQ(ddl_barrier(comm_), DDL_SUCCESS) << ddl_last_error();
}

TEST_F(LibraryNcclOnGpu, MaximaAveragesAndAReduceScatterOfDeviceBuffersAreExact) {
  // Float values that are small integers: maxima, averages over the ranks (a sum, then a division on the
  // GPU) and the reduce-scatter's blocks are exact in every order.
  constexpr std::size_t kBlock = 4099;
  const std::size_t count = kBlock * static_cast<std::size_t>(size_);
  std::vector<float> mine(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = valueOf(i, rank_);
  for (const ddl_op op : {DDL_MAX, DDL_AVG}) {
    DeviceFloats buffer(count);
    buffer.fill(mine);
    ASSERT_EQ(ddl_allreduce(comm_, buffer.data(), buffer.data(), count, DDL_FLOAT32, op), DDL_SUCCESS) << ddl_last_error();
    const std::vector<float> got = buffer.read();
    int wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      float expected = op == DDL_MAX ? valueOf(i, 0) : 0.0f;
      for (int r = 0; r < size_; ++r) expected = op == DDL_MAX ? std::max(expected, valueOf(i, r)) : expected + valueOf(i, r);
      if (op == DDL_AVG) expected /= static_cast<float>(size_);
      wrong += got[i] != expected;
    }
    EXPECT_EQ(wrong, 0) << "op " << op;
  }
  DeviceFloats whole(count), block(kBlock);
  whole.fill(mine);
  ASSERT_EQ(ddl_reduce_scatter(comm_, whole.data(), block.data(), kBlock, DDL_FLOAT32, DDL_SUM), DDL_SUCCESS) << ddl_last_error();
  const std::vector<float> got = block.read();
  int wrong = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    float sum = 0;
    for (int r = 0; r < size_; ++r) sum += valueOf(static_cast<std::size_t>(rank_) * kBlock + i, r);
    wrong += got[i] != sum;
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_TRUE(whole.read() == mine) << "send is left as it was";
}

TEST_F(LibraryNcclOnGpu, PointToPointIsRefusedAsUnsupportedOnDeviceMemory) {
  DeviceFloats buffer(4);
  EXPECT_EQ(ddl_send(comm_, buffer.data(), 4, DDL_FLOAT32, (rank_ + 1) % std::max(size_, 2), 0), DDL_UNSUPPORTED);
}

TEST_F(LibraryNcclOnGpu, AHostBufferIsRefusedBeforeAnythingRuns) {
  std::vector<float> host(16, 1.0f);
  DeviceFloats device(16);
  EXPECT_EQ(ddl_allreduce(comm_, host.data(), device.data(), 16, DDL_FLOAT32, DDL_SUM), DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("send: host memory, on a communicator of GPU memory"), std::string::npos)
      << ddl_last_error();
  EXPECT_EQ(ddl_broadcast(comm_, host.data(), 16, DDL_FLOAT32, 0), DDL_INVALID_ARGUMENT);
  for (const float value : host) EXPECT_EQ(value, 1.0f);
}

TEST_F(LibraryNcclOnGpu, DeviceBuffersThatPartlyOverlapAreRefused) {
  // cudaMemcpy cannot move a buffer onto part of itself: GPU buffers are in place or apart.
  DeviceFloats buffer(32);
  EXPECT_EQ(ddl_allreduce(comm_, buffer.data(), buffer.data() + 8, 16, DDL_FLOAT32, DDL_SUM), DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("overlaps recv without being in place"), std::string::npos) << ddl_last_error();
}

}  // namespace
