// libddlscale's C API under mpirun (tests/runtime/library_api_fixture.hpp), its collectives: every allreduce
// algorithm that runs on this many ranks without options leaves every rank with the exact sum, in place and
// out of place, in every data type; every operator (sum, product, min, max, average) on floats and integers
// gives its exact result; every reduce-scatter algorithm leaves each rank its block; a broadcast copies the
// root's bits; an all-gather puts each rank's block in its place; and the algorithm comes from a name with
// options, a tuning table or a schedule file.

#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/schedule_json.hpp"
#include "ddlscale/ddlscale.h"
#include "runtime/narrow_floats.hpp"

#include "tests/runtime/library_api_fixture.hpp"

namespace {

using namespace ddl::testing;  // the fixture, the job's ranks and the shared checks

TEST_F(LibraryApi, EveryAllreduceAlgorithmThatFitsLeavesEveryRankWithTheExactSum) {
  const int ran = ddl::testing::forEachAllreduceAlgorithmWithoutOptions(comm_, [&](const std::string& name) {
    for (const std::size_t count : {std::size_t{1}, static_cast<std::size_t>(size_) + 1, std::size_t{4099}, std::size_t{300007}})
      for (const bool inPlace : {true, false})
        EXPECT_EQ(wrongAfterAllreduce(comm_, count, rank_, size_, inPlace), 0)
            << name << ", " << count << " elements, " << (inPlace ? "in place" : "out of place");
  });
  EXPECT_GE(ran, 3) << "ring, recursive doubling and the binomial tree take any rank count";
}

TEST_F(LibraryApi, AlgorithmOptionsAreNameValuePairs) {
  if (size_ % 2 != 0) GTEST_SKIP() << "a 2 x P/2 grid needs an even rank count";
  const std::string dims = "dims=2x" + std::to_string(size_ / 2);
  ASSERT_EQ(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, "ddl", dims.c_str()), DDL_SUCCESS) << ddl_last_error();
  char text[64];
  ASSERT_EQ(ddl_comm_describe(comm_, DDL_ALLREDUCE, 4096, text, sizeof text), DDL_SUCCESS);
  EXPECT_EQ(std::string(text), "ddl 2x" + std::to_string(size_ / 2));
  EXPECT_EQ(wrongAfterAllreduce(comm_, 100000, rank_, size_, false), 0);
  ASSERT_EQ(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, "hierarchical", "ranks-per-node=2 inner=ring"), DDL_SUCCESS)
      << ddl_last_error();
  EXPECT_EQ(wrongAfterAllreduce(comm_, 100000, rank_, size_, true), 0);
}

TEST_F(LibraryApi, NarrowAndWideTypesSumExactly) {
  const std::size_t count = 5000;
  for (const ddl_datatype type : {DDL_FLOAT64, DDL_FLOAT16, DDL_BFLOAT16}) {
    std::vector<double> wide(count);
    std::vector<std::uint16_t> narrow(count);
    for (std::size_t i = 0; i < count; ++i) {
      wide[i] = valueOf(i, rank_);
      narrow[i] = type == DDL_FLOAT16 ? ddl::floatToFloat16(valueOf(i, rank_)) : ddl::floatToBfloat16(valueOf(i, rank_));
    }
    void* buffer = type == DDL_FLOAT64 ? static_cast<void*>(wide.data()) : static_cast<void*>(narrow.data());
    ASSERT_EQ(ddl_allreduce(comm_, buffer, buffer, count, type, DDL_SUM), DDL_SUCCESS) << ddl_last_error();
    int wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const double got = type == DDL_FLOAT64   ? wide[i]
                         : type == DDL_FLOAT16 ? ddl::float16ToFloat(narrow[i])
                                               : ddl::bfloat16ToFloat(narrow[i]);
      wrong += got != sumOf(i, size_);
    }
    EXPECT_EQ(wrong, 0) << "type " << type;
  }
}

// Rank r's value at `index` as an integer in [-3, 3]: small enough that products over 8 ranks fit int32.
std::int64_t integerOf(std::size_t index, int rank) { return static_cast<std::int64_t>((index * 5 + static_cast<std::size_t>(rank) * 3) % 7) - 3; }

// What `op` gives over every rank's integerOf(index, r), in int64.
std::int64_t expectedOver(ddl_op op, std::size_t index, int ranks) {
  std::int64_t result = integerOf(index, 0);
  for (int r = 1; r < ranks; ++r) {
    const std::int64_t value = integerOf(index, r);
    if (op == DDL_SUM || op == DDL_AVG) result += value;
    if (op == DDL_PROD) result *= value;
    if (op == DDL_MIN) result = std::min(result, value);
    if (op == DDL_MAX) result = std::max(result, value);
  }
  return op == DDL_AVG ? result / ranks : result;  // C++'s division truncates toward zero, as ncclAvg's
}

template <class T>
int wrongAfterIntegerAllreduce(ddl_comm comm, ddl_datatype type, ddl_op op, std::size_t count, int rank, int ranks) {
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(integerOf(i, rank));
  EXPECT_EQ(ddl_allreduce(comm, values.data(), values.data(), count, type, op), DDL_SUCCESS) << ddl_last_error();
  int wrong = 0;
  for (std::size_t i = 0; i < count; ++i) wrong += values[i] != static_cast<T>(expectedOver(op, i, ranks));
  return wrong;
}

TEST_F(LibraryApi, EveryOperatorGivesItsExactResultOnIntegersWithEveryAlgorithm) {
  const int ran = ddl::testing::forEachAllreduceAlgorithmWithoutOptions(comm_, [&](const std::string& name) {
    for (const ddl_op op : {DDL_SUM, DDL_PROD, DDL_MIN, DDL_MAX, DDL_AVG}) {
      EXPECT_EQ(wrongAfterIntegerAllreduce<std::int32_t>(comm_, DDL_INT32, op, 4099, rank_, size_), 0) << name << " int32 op " << op;
      EXPECT_EQ(wrongAfterIntegerAllreduce<std::int64_t>(comm_, DDL_INT64, op, 1001, rank_, size_), 0) << name << " int64 op " << op;
      EXPECT_EQ(wrongAfterIntegerAllreduce<std::int8_t>(comm_, DDL_INT8, op, 77, rank_, size_), 0) << name << " int8 op " << op;
    }
  });
  EXPECT_GE(ran, 3);
  // uint8 wraps: every rank adds 200, so the sum is 200 x ranks modulo 256.
  std::vector<std::uint8_t> bytes(33, 200);
  ASSERT_EQ(ddl_allreduce(comm_, bytes.data(), bytes.data(), bytes.size(), DDL_UINT8, DDL_SUM), DDL_SUCCESS) << ddl_last_error();
  EXPECT_EQ(bytes, std::vector<std::uint8_t>(33, static_cast<std::uint8_t>(200 * size_)));
}

TEST_F(LibraryApi, FloatMinimaMaximaAndAveragesAreExact) {
  const std::size_t count = 3000;
  for (const ddl_op op : {DDL_MIN, DDL_MAX, DDL_AVG, DDL_PROD}) {
    std::vector<double> send(count), recv(count, std::nan(""));
    for (std::size_t i = 0; i < count; ++i) send[i] = static_cast<double>(integerOf(i, rank_)) / 4;
    ASSERT_EQ(ddl_allreduce(comm_, send.data(), recv.data(), count, DDL_FLOAT64, op), DDL_SUCCESS) << ddl_last_error();
    int wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
      double expected = static_cast<double>(integerOf(i, 0)) / 4;
      for (int r = 1; r < size_; ++r) {
        const double value = static_cast<double>(integerOf(i, r)) / 4;
        expected = op == DDL_MIN ? std::min(expected, value) : op == DDL_MAX ? std::max(expected, value)
                 : op == DDL_PROD ? expected * value : expected + value;
      }
      if (op == DDL_AVG) expected /= size_;
      wrong += recv[i] != expected;
    }
    EXPECT_EQ(wrong, 0) << "op " << op;
  }
}

TEST_F(LibraryApi, EveryReduceScatterAlgorithmLeavesEachRankItsBlock) {
  const std::size_t block = 1001;
  int ran = 0;
  for (const ddl::AlgorithmDefinition* algorithm : ddl::allAlgorithms()) {
    if (algorithm->collective != ddl::CollectiveKind::ReduceScatter) continue;
    const std::string name(algorithm->name);
    if (ddl_comm_set_algorithm(comm_, DDL_REDUCE_SCATTER, name.c_str(), nullptr) != DDL_SUCCESS) continue;
    ++ran;
    for (const ddl_op op : {DDL_SUM, DDL_MAX, DDL_AVG}) {
      std::vector<std::int32_t> send(block * static_cast<std::size_t>(size_)), recv(block, -99);
      for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<std::int32_t>(integerOf(i, rank_));
      const std::vector<std::int32_t> sent = send;
      ASSERT_EQ(ddl_reduce_scatter(comm_, send.data(), recv.data(), block, DDL_INT32, op), DDL_SUCCESS) << name << ": " << ddl_last_error();
      int wrong = 0;
      for (std::size_t i = 0; i < block; ++i)
        wrong += recv[i] != expectedOver(op, static_cast<std::size_t>(rank_) * block + i, size_);
      EXPECT_EQ(wrong, 0) << name << " op " << op;
      EXPECT_EQ(send, sent) << name << ": send is left as it was";
      // In place: recv is this rank's block of send.
      std::int32_t* mine = send.data() + static_cast<std::size_t>(rank_) * block;
      ASSERT_EQ(ddl_reduce_scatter(comm_, send.data(), mine, block, DDL_INT32, op), DDL_SUCCESS) << ddl_last_error();
      EXPECT_TRUE(std::equal(mine, mine + block, recv.begin())) << name << " in place, op " << op;
    }
  }
  EXPECT_GE(ran, 1) << "the ring reduce-scatter takes any rank count";
}


TEST_F(LibraryApi, ABroadcastCopiesTheRootsBitsFromEveryRoot) {
  for (int root = 0; root < size_; ++root) {
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{100003}}) {
      std::vector<std::uint32_t> words(count);
      for (std::size_t i = 0; i < count; ++i)
        words[i] = rank_ == root ? static_cast<std::uint32_t>(i * 2654435761u) | 0x7f800001u * (i % 3 == 0) : 0;  // NaNs too
      ASSERT_EQ(ddl_broadcast(comm_, words.data(), count, DDL_FLOAT32, root), DDL_SUCCESS) << ddl_last_error();
      int wrong = 0;
      for (std::size_t i = 0; i < count; ++i)
        wrong += words[i] != (static_cast<std::uint32_t>(i * 2654435761u) | 0x7f800001u * (i % 3 == 0));
      EXPECT_EQ(wrong, 0) << "root " << root << ", " << count << " elements";
    }
  }
}


TEST_F(LibraryApi, AnAllGatherPutsEachRanksBlockInItsPlace) {
  const std::size_t count = 3001;
  std::vector<float> mine(count), gathered(count * static_cast<std::size_t>(size_), std::nanf(""));
  for (std::size_t i = 0; i < count; ++i) mine[i] = static_cast<float>(rank_ * 10000 + static_cast<int>(i));
  ASSERT_EQ(ddl_allgather(comm_, mine.data(), gathered.data(), count, DDL_FLOAT32), DDL_SUCCESS) << ddl_last_error();
  // In place: this rank's block is already where it goes.
  std::vector<float> inPlace(gathered.size(), std::nanf(""));
  std::copy(mine.begin(), mine.end(), inPlace.begin() + static_cast<std::ptrdiff_t>(count) * rank_);
  ASSERT_EQ(ddl_allgather(comm_, inPlace.data() + count * static_cast<std::size_t>(rank_), inPlace.data(), count,
                          DDL_FLOAT32),
            DDL_SUCCESS);
  int wrong = 0;
  for (int r = 0; r < size_; ++r)
    for (std::size_t i = 0; i < count; ++i) {
      const float expected = static_cast<float>(r * 10000 + static_cast<int>(i));
      wrong += gathered[static_cast<std::size_t>(r) * count + i] != expected;
      wrong += inPlace[static_cast<std::size_t>(r) * count + i] != expected;
    }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(ddl_barrier(comm_), DDL_SUCCESS);
}

TEST_F(LibraryApi, ATuningTableChoosesPerSize) {
  // The tables shipped with the tuned PowerAI scenario exist for 2, 4, 8, ... GPUs.
  const std::string path = std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/tuning/minsky-p100-ib-edr-allreduce-" +
                           std::to_string(size_) + ".json";
  if (!std::ifstream(path)) GTEST_SKIP() << "no shipped table for " << size_ << " ranks";
  ASSERT_EQ(ddl_comm_set_tuning(comm_, DDL_ALLREDUCE, path.c_str()), DDL_SUCCESS) << ddl_last_error();
  char small[64], large[64];
  ASSERT_EQ(ddl_comm_describe(comm_, DDL_ALLREDUCE, 4096, small, sizeof small), DDL_SUCCESS);
  ASSERT_EQ(ddl_comm_describe(comm_, DDL_ALLREDUCE, std::size_t{256} << 20, large, sizeof large), DDL_SUCCESS);
  EXPECT_STRNE(small, "");
  EXPECT_STRNE(large, "");
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1024, rank_, size_, true), 0) << small;
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1 << 20, rank_, size_, true), 0);
}

TEST_F(LibraryApi, AScheduleFileRunsTheCallsOfItsShape) {
  const ddl::AlgorithmDefinition& ring = ddl::findAlgorithm(ddl::CollectiveKind::Allreduce, "ring");
  const ddl::Schedule schedule = ddl::makeSchedule(ring, {ddl::CollectiveKind::Allreduce, size_, 777, 4}, {});
  char path[] = "/tmp/ddlscale-schedule-XXXXXX";
  if (rank_ == 0) {
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::ofstream out(path);
    ddl::writeScheduleJson(out, schedule);
  }
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  ASSERT_EQ(ddl_comm_set_schedule(comm_, DDL_ALLREDUCE, path), DDL_SUCCESS) << ddl_last_error();
  EXPECT_EQ(wrongAfterAllreduce(comm_, 777, rank_, size_, false), 0);
  std::vector<float> other(778);
  EXPECT_EQ(ddl_allreduce(comm_, other.data(), other.data(), other.size(), DDL_FLOAT32, DDL_SUM), DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("777 elements"), std::string::npos) << ddl_last_error();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0) std::remove(path);
}

}  // namespace
