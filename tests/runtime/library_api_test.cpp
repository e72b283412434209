// libddlscale's C API (ddlscale/ddlscale.h) under mpirun, as a framework calls it: every allreduce algorithm
// that runs on this many ranks without options leaves every rank with the exact sum, in place and out of
// place, in every data type; every operator (sum, product, min, max, average) on floats and integers gives
// its exact result; every reduce-scatter algorithm leaves each rank its block; requests complete in any order they are waited on; a broadcast copies the
// root's bits; an all-gather puts each rank's block in its place; the algorithm comes from a name with
// options, a tuning table or a schedule file; and every bad argument is DDL_INVALID_ARGUMENT with a
// message naming it, having touched nothing.
//
//   mpirun -np P library_api_tests [--thread-single | --tcp]
// With --thread-single, MPI is initialised without MPI_THREAD_MULTIPLE, and collectives run in the caller.
// With --tcp, every communicator is made by ddl_comm_init_tcp (MPI only tells the ranks where rank 0
// listens), so every test runs over the TCP transport.

#include <mpi.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/schedule_json.hpp"
#include "ddlscale/ddlscale.h"
#include "runtime/narrow_floats.hpp"
#include "tests/runtime/library_test_support.hpp"

namespace {

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int worldSize() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

bool overTcp = false;

// Where rank 0 of a TCP communicator listens: a port free a moment ago, told to every rank.
std::string rootAddress() {
  char address[32] = {};
  if (worldRank() == 0) {
    const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in bound{};
    bound.sin_family = AF_INET;
    bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof bound;
    ::bind(probe, reinterpret_cast<sockaddr*>(&bound), sizeof bound);
    ::getsockname(probe, reinterpret_cast<sockaddr*>(&bound), &length);
    ::close(probe);
    std::snprintf(address, sizeof address, "127.0.0.1:%d", ntohs(bound.sin_port));
  }
  MPI_Bcast(address, sizeof address, MPI_CHAR, 0, MPI_COMM_WORLD);
  return address;
}

ddl_result makeCommunicator(ddl_comm* comm) {
  return overTcp ? ddl_comm_init_tcp(worldRank(), worldSize(), rootAddress().c_str(), comm) : ddl_comm_init_mpi(MPI_COMM_WORLD, comm);
}

class LibraryApi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(makeCommunicator(&comm_), DDL_SUCCESS) << ddl_last_error(); }
  void TearDown() override { EXPECT_EQ(ddl_comm_destroy(comm_), DDL_SUCCESS); }
  ddl_comm comm_ = nullptr;
  const int rank_ = worldRank();
  const int size_ = worldSize();
};

using ddl::testing::valueOf;

float sumOf(std::size_t index, int ranks) {
  float sum = 0;
  for (int r = 0; r < ranks; ++r) sum += valueOf(index, r);
  return sum;
}

// Allreduces `count` float32 values in place (or out of place) and counts this rank's wrong elements.
int wrongAfterAllreduce(ddl_comm comm, std::size_t count, int rank, int ranks, bool inPlace) {
  std::vector<float> send(count), recv(count, std::nanf(""));
  for (std::size_t i = 0; i < count; ++i) send[i] = valueOf(i, rank);
  float* out = inPlace ? send.data() : recv.data();
  EXPECT_EQ(ddl_allreduce(comm, send.data(), out, count, DDL_FLOAT32, DDL_SUM), DDL_SUCCESS) << ddl_last_error();
  int wrong = 0;
  for (std::size_t i = 0; i < count; ++i) wrong += out[i] != sumOf(i, ranks);
  if (!inPlace)
    for (std::size_t i = 0; i < count; ++i) wrong += send[i] != valueOf(i, rank);  // the input is left as it was
  return wrong;
}

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

TEST_F(LibraryApi, PointToPointMessagesMatchTheirTagInTheOrderIssued) {
  if (size_ < 2) GTEST_SKIP() << "needs two ranks";
  const int next = (rank_ + 1) % size_, previous = (rank_ + size_ - 1) % size_;
  std::vector<std::int64_t> five(7, 500 + rank_), zero(3, rank_), firstZero(3, -1), secondZero(3, -1), gotFive(7, -1);
  std::vector<std::int64_t> zeroAgain(3, 1000 + rank_);
  // Tag 5 goes first but is received last: tags keep their own order.
  ddl_request requests[5];
  ASSERT_EQ(ddl_isend(comm_, five.data(), five.size(), DDL_INT64, next, 5, &requests[0]), DDL_SUCCESS) << ddl_last_error();
  ASSERT_EQ(ddl_isend(comm_, zero.data(), zero.size(), DDL_INT64, next, 0, &requests[1]), DDL_SUCCESS) << ddl_last_error();
  ASSERT_EQ(ddl_isend(comm_, zeroAgain.data(), zeroAgain.size(), DDL_INT64, next, 0, &requests[2]), DDL_SUCCESS);
  ASSERT_EQ(ddl_irecv(comm_, firstZero.data(), firstZero.size(), DDL_INT64, previous, 0, &requests[3]), DDL_SUCCESS);
  ASSERT_EQ(ddl_irecv(comm_, secondZero.data(), secondZero.size(), DDL_INT64, previous, 0, &requests[4]), DDL_SUCCESS);
  ASSERT_EQ(ddl_recv(comm_, gotFive.data(), gotFive.size(), DDL_INT64, previous, 5), DDL_SUCCESS) << ddl_last_error();
  for (ddl_request request : requests) ASSERT_EQ(ddl_wait(request), DDL_SUCCESS) << ddl_last_error();
  EXPECT_EQ(firstZero, std::vector<std::int64_t>(3, previous));
  EXPECT_EQ(secondZero, std::vector<std::int64_t>(3, 1000 + previous));
  EXPECT_EQ(gotFive, std::vector<std::int64_t>(7, 500 + previous));
  // A blocking exchange in an order that cannot deadlock: even ranks send first.
  if (size_ % 2 == 0) {
    std::vector<float> out(100000, static_cast<float>(rank_)), in(100000, -1.0f);
    const int partner = rank_ ^ 1;
    if (rank_ % 2 == 0) {
      ASSERT_EQ(ddl_send(comm_, out.data(), out.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
      ASSERT_EQ(ddl_recv(comm_, in.data(), in.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
    } else {
      ASSERT_EQ(ddl_recv(comm_, in.data(), in.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
      ASSERT_EQ(ddl_send(comm_, out.data(), out.size(), DDL_FLOAT32, partner, 1), DDL_SUCCESS) << ddl_last_error();
    }
    EXPECT_EQ(in, std::vector<float>(100000, static_cast<float>(partner)));
  }
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1000, rank_, size_, true), 0) << "collectives after point-to-point";
}

TEST_F(LibraryApi, AReceiveFromAnyRankTakesEachSendersMessagesInTheirOrderAndNamesTheSender) {
  if (size_ < 2) GTEST_SKIP() << "needs two ranks";
  // Every other rank sends rank 0 two small messages on tag 3, then one above the TCP eager limit (asked
  // for, then cleared) on tag 4; rank 0 receives them all from any rank, the large ones with requests.
  constexpr std::size_t kLarge = 100000;  // 400 kB of int32
  if (rank_ != 0) {
    std::vector<std::int32_t> first(4, 10 * rank_), second(4, 10 * rank_ + 1), large(kLarge, 10 * rank_ + 2);
    ASSERT_EQ(ddl_send(comm_, first.data(), first.size(), DDL_INT32, 0, 3), DDL_SUCCESS) << ddl_last_error();
    ASSERT_EQ(ddl_send(comm_, second.data(), second.size(), DDL_INT32, 0, 3), DDL_SUCCESS) << ddl_last_error();
    ASSERT_EQ(ddl_send(comm_, large.data(), large.size(), DDL_INT32, 0, 4), DDL_SUCCESS) << ddl_last_error();
  } else {
    std::map<int, std::vector<std::int32_t>> seen;  // by sender, the values in the order they came
    for (int k = 0; k < 2 * (size_ - 1); ++k) {
      std::vector<std::int32_t> message(4, -1);
      int source = -1;
      ASSERT_EQ(ddl_recv_any(comm_, message.data(), message.size(), DDL_INT32, 3, &source), DDL_SUCCESS) << ddl_last_error();
      ASSERT_GE(source, 1);
      ASSERT_LT(source, size_);
      EXPECT_EQ(message, std::vector<std::int32_t>(4, message[0])) << "one message, whole";
      seen[source].push_back(message[0]);
    }
    std::vector<std::vector<std::int32_t>> large(static_cast<std::size_t>(size_ - 1), std::vector<std::int32_t>(kLarge, -1));
    std::vector<int> sources(large.size(), -1);
    std::vector<ddl_request> requests(large.size());
    for (std::size_t k = 0; k < large.size(); ++k)
      ASSERT_EQ(ddl_irecv_any(comm_, large[k].data(), kLarge, DDL_INT32, 4, &sources[k], &requests[k]), DDL_SUCCESS) << ddl_last_error();
    for (std::size_t k = 0; k < large.size(); ++k) {
      ASSERT_EQ(ddl_wait(requests[k]), DDL_SUCCESS) << ddl_last_error();
      EXPECT_EQ(large[k], std::vector<std::int32_t>(kLarge, 10 * sources[k] + 2)) << "from rank " << sources[k];
      seen[sources[k]].push_back(large[k][0]);
    }
    for (int r = 1; r < size_; ++r)
      EXPECT_EQ(seen[r], (std::vector<std::int32_t>{10 * r, 10 * r + 1, 10 * r + 2})) << "rank " << r << "'s, in its order";
  }
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1000, rank_, size_, true), 0) << "collectives after receives from any rank";
}

TEST_F(LibraryApi, AnAllToAllvPutsEveryBlockWhereItsCountsSay) {
  // Rank r sends q + r + 1 elements to rank q, valued 100 r + q, laid out in rank order.
  const auto ranks = static_cast<std::size_t>(size_);
  std::vector<size_t> sendCounts(ranks), sendOffsets(ranks), recvCounts(ranks), recvOffsets(ranks);
  std::size_t sendTotal = 0, recvTotal = 0;
  for (std::size_t q = 0; q < ranks; ++q) {
    sendCounts[q] = q + static_cast<std::size_t>(rank_) + 1;
    recvCounts[q] = static_cast<std::size_t>(rank_) + q + 1;
    sendOffsets[q] = sendTotal;
    recvOffsets[q] = recvTotal;
    sendTotal += sendCounts[q];
    recvTotal += recvCounts[q];
  }
  std::vector<std::int32_t> send(sendTotal), recv(recvTotal, -1);
  for (std::size_t q = 0; q < ranks; ++q)
    std::fill_n(send.begin() + static_cast<std::ptrdiff_t>(sendOffsets[q]), sendCounts[q], 100 * rank_ + static_cast<int>(q));
  ASSERT_EQ(ddl_alltoallv(comm_, send.data(), sendCounts.data(), sendOffsets.data(), recv.data(), recvCounts.data(),
                          recvOffsets.data(), DDL_INT32),
            DDL_SUCCESS)
      << ddl_last_error();
  int wrong = 0;
  for (std::size_t q = 0; q < ranks; ++q)
    for (std::size_t i = 0; i < recvCounts[q]; ++i) wrong += recv[recvOffsets[q] + i] != 100 * static_cast<int>(q) + rank_;
  EXPECT_EQ(wrong, 0);
}

TEST_F(LibraryApi, RequestsCompleteWhicheverOrderTheyAreWaitedIn) {
  const std::size_t count = 20000;
  std::vector<std::vector<float>> buffers(4, std::vector<float>(count));
  std::vector<ddl_request> requests(buffers.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    for (std::size_t i = 0; i < count; ++i) buffers[b][i] = valueOf(i + b, rank_);
    ASSERT_EQ(ddl_iallreduce(comm_, buffers[b].data(), buffers[b].data(), count, DDL_FLOAT32, DDL_SUM, &requests[b]), DDL_SUCCESS);
  }
  int done = 0;
  ASSERT_EQ(ddl_test(requests[3], &done), DDL_SUCCESS);
  for (std::size_t b = buffers.size(); b-- > 0;) ASSERT_EQ(ddl_wait(requests[b]), DDL_SUCCESS) << ddl_last_error();
  int wrong = 0;
  for (std::size_t b = 0; b < buffers.size(); ++b)
    for (std::size_t i = 0; i < count; ++i) wrong += buffers[b][i] != sumOf(i + b, size_);
  EXPECT_EQ(wrong, 0);
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

TEST_F(LibraryApi, ABroadcastWhoseRootTheRanksDisagreeOnIsRefusedByEveryRankAndTheCommunicatorStaysRight) {
  if (size_ < 2) GTEST_SKIP() << "needs two ranks";
  // Unchecked, both roots would send, the all-gather after the scatter would take their blocks for its own,
  // and every later allreduce of the communicator would sum wrong, in silence.
  std::vector<float> words(16, static_cast<float>(rank_ + 1));
  EXPECT_EQ(ddl_broadcast(comm_, words.data(), words.size(), DDL_FLOAT32, rank_ == 1 ? 1 : 0), DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("rank 0 calls broadcast of 16 float32 from rank 0 (the communicator's "
                                               "call 1), rank 1 broadcast of 16 float32 from rank 1 (the communicator's call 1)"),
            std::string::npos)
      << ddl_last_error();
  EXPECT_EQ(words, std::vector<float>(16, static_cast<float>(rank_ + 1)));  // nothing moved
  EXPECT_EQ(wrongAfterAllreduce(comm_, 5000, rank_, size_, true), 0);
  EXPECT_EQ(ddl_broadcast(comm_, words.data(), words.size(), DDL_FLOAT32, 0), DDL_SUCCESS) << ddl_last_error();
  EXPECT_EQ(words, std::vector<float>(16, 1.0f));
}

TEST(LibraryAgreement, WithTheCheckOnRanksThatDisagreeOnTypeOrCountAreRefusedAndTheCommunicatorStaysRight) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  // DDLSCALE_CHECK_AGREEMENT=1 is read when a communicator is made, on every rank alike.
  ASSERT_EQ(setenv("DDLSCALE_CHECK_AGREEMENT", "1", 1), 0);
  ddl_comm comm = nullptr;
  const ddl_result made = makeCommunicator(&comm);
  unsetenv("DDLSCALE_CHECK_AGREEMENT");
  ASSERT_EQ(made, DDL_SUCCESS) << ddl_last_error();
  const int rank = worldRank();
  std::vector<std::uint16_t> halves(64, 0x3c00);  // 1.0 in float16; about 1.9 in bfloat16
  EXPECT_EQ(ddl_allreduce(comm, halves.data(), halves.data(), halves.size(), rank == 1 ? DDL_BFLOAT16 : DDL_FLOAT16, DDL_SUM),
            DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("rank 0 calls allreduce (sum) of 64 float16"), std::string::npos) << ddl_last_error();
  EXPECT_NE(std::string(ddl_last_error()).find("rank 1 allreduce (sum) of 64 bfloat16"), std::string::npos) << ddl_last_error();
  EXPECT_EQ(halves, std::vector<std::uint16_t>(64, 0x3c00));
  std::vector<float> values(100, 1.0f);
  EXPECT_EQ(ddl_allreduce(comm, values.data(), values.data(), rank == 1 ? 99 : 100, DDL_FLOAT32, DDL_SUM), DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("rank 1 allreduce (sum) of 99 float32 (the communicator's call 2)"),
            std::string::npos)
      << ddl_last_error();
  std::vector<std::int32_t> counts(10, 1);
  EXPECT_EQ(ddl_allreduce(comm, counts.data(), counts.data(), counts.size(), DDL_INT32, rank == 1 ? DDL_MAX : DDL_SUM),
            DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("rank 1 allreduce (max) of 10 int32"), std::string::npos) << ddl_last_error();
  EXPECT_EQ(counts, std::vector<std::int32_t>(10, 1));
  EXPECT_EQ(wrongAfterAllreduce(comm, 5000, rank, worldSize(), false), 0);
  EXPECT_EQ(ddl_comm_destroy(comm), DDL_SUCCESS);
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

// A bad argument: DDL_INVALID_ARGUMENT, a message naming `field`, and the buffer untouched.
void expectRefused(ddl_result result, const std::string& field) {
  EXPECT_EQ(result, DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find(field), std::string::npos) << "'" << ddl_last_error() << "' names no " << field;
}

TEST_F(LibraryApi, AChoiceOneRankRefusesIsRefusedByEveryRank) {
  if (size_ < 2) GTEST_SKIP() << "needs two ranks";
  // Rank 0 names a table that is not there; the others a good one: none of them may take it.
  const std::string good = std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/tuning/minsky-p100-ib-edr-allreduce-" +
                           std::to_string(size_) + ".json";
  const std::string path = rank_ == 0 ? "/nonexistent/table.json" : good;
  EXPECT_EQ(ddl_comm_set_tuning(comm_, DDL_ALLREDUCE, path.c_str()), DDL_INVALID_ARGUMENT);
  // Ranks naming different algorithms are refused too, and keep the choice before.
  EXPECT_EQ(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, rank_ == 0 ? "ring" : "recursive-doubling", nullptr),
            DDL_INVALID_ARGUMENT);
  if (rank_ != 0) {
    EXPECT_NE(std::string(ddl_last_error()).find("differently"), std::string::npos) << ddl_last_error();
  }
  char text[64];
  ASSERT_EQ(ddl_comm_describe(comm_, DDL_ALLREDUCE, 4096, text, sizeof text), DDL_SUCCESS);
  EXPECT_STREQ(text, "ring");
  EXPECT_EQ(wrongAfterAllreduce(comm_, 5000, rank_, size_, true), 0);
}

TEST_F(LibraryApi, BadArgumentsAreRefusedNamingThemWithNothingRun) {
  std::vector<float> buffer(16, 1.0f);
  expectRefused(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, "rign", nullptr), "algorithm");
  expectRefused(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, "ddl", "dims=3x1000"), "dims");
  expectRefused(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, "ring", "bogus=1"), "unknown option 'bogus'");
  expectRefused(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, "ring", "dims"), "name=value");
  expectRefused(ddl_comm_set_algorithm(comm_, DDL_ALLREDUCE, nullptr, nullptr), "name");
  expectRefused(ddl_comm_set_algorithm(comm_, static_cast<ddl_collective>(7), "ring", nullptr), "collective");
  expectRefused(ddl_comm_set_tuning(comm_, DDL_ALLREDUCE, "/nonexistent/table.json"), "/nonexistent/table.json");
  const std::string otherRanks = std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/tuning/minsky-p100-ib-edr-allreduce-" +
                                 std::to_string(size_ == 2 ? 4 : 2) + ".json";
  expectRefused(ddl_comm_set_tuning(comm_, DDL_ALLREDUCE, otherRanks.c_str()), "ranks");
  expectRefused(ddl_comm_set_schedule(comm_, DDL_ALLREDUCE, "/nonexistent/schedule.json"), "/nonexistent/schedule.json");
  expectRefused(ddl_comm_set_timeout(comm_, 0.5), "seconds");
  expectRefused(ddl_allreduce(comm_, nullptr, buffer.data(), buffer.size(), DDL_FLOAT32, DDL_SUM), "send");
  expectRefused(ddl_allreduce(comm_, buffer.data(), buffer.data(), buffer.size(), static_cast<ddl_datatype>(9), DDL_SUM), "type");
  expectRefused(ddl_allreduce(comm_, buffer.data(), buffer.data(), buffer.size(), static_cast<ddl_datatype>(-1), DDL_SUM), "type");
  expectRefused(ddl_allreduce(nullptr, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32, DDL_SUM), "comm");
  expectRefused(ddl_allreduce(comm_, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32, static_cast<ddl_op>(5)), "op");
  expectRefused(ddl_reduce_scatter(comm_, buffer.data(), buffer.data(), 1, DDL_FLOAT32, static_cast<ddl_op>(-1)), "op");
  expectRefused(ddl_send(comm_, buffer.data(), 4, DDL_FLOAT32, rank_, 0), "peer");
  expectRefused(ddl_recv(comm_, buffer.data(), 4, DDL_FLOAT32, size_, 0), "peer");
  expectRefused(ddl_recv_any(comm_, buffer.data(), 4, DDL_FLOAT32, 0, nullptr), "source");
  int source = -1;
  expectRefused(ddl_recv_any(comm_, buffer.data(), 4, DDL_FLOAT32, -1, &source), size_ > 1 ? "tag" : "comm");
  if (size_ > 1) expectRefused(ddl_send(comm_, buffer.data(), 4, DDL_FLOAT32, (rank_ + 1) % size_, 1024), "tag");
  expectRefused(ddl_alltoallv(comm_, buffer.data(), nullptr, nullptr, buffer.data(), nullptr, nullptr, DDL_FLOAT32), "sendcounts");
  if (size_ > 1 && size_ <= 8)  // recv overlaps send, at no rank's block: every rank refuses alike
    expectRefused(ddl_reduce_scatter(comm_, buffer.data(), buffer.data() + 1, 2, DDL_FLOAT32, DDL_SUM), "recv");
  expectRefused(ddl_broadcast(comm_, buffer.data(), buffer.size(), DDL_FLOAT32, size_), "root");
  expectRefused(ddl_iallreduce(comm_, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32, DDL_SUM, nullptr), "request");
  expectRefused(ddl_wait(nullptr), "request");
  for (const float value : buffer) EXPECT_EQ(value, 1.0f);
  // The communicator still works after every refusal, with the last good choice.
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1000, rank_, size_, true), 0);
}

TEST(LibraryHandles, AHandleUsedAfterItWasDestroyedOrNeverMadeIsRefusedNotFollowed) {
  ddl_comm comm = nullptr;
  ASSERT_EQ(makeCommunicator(&comm), DDL_SUCCESS) << ddl_last_error();
  std::vector<float> buffer(8, 1.0f);
  ddl_request request = nullptr;
  ASSERT_EQ(ddl_iallreduce(comm, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32, DDL_SUM, &request), DDL_SUCCESS);
  ASSERT_EQ(ddl_wait(request), DDL_SUCCESS) << ddl_last_error();
  expectRefused(ddl_wait(request), "not a live request");
  int done = 0;
  expectRefused(ddl_test(request, &done), "not a live request");
  ASSERT_EQ(ddl_comm_destroy(comm), DDL_SUCCESS) << ddl_last_error();
  expectRefused(ddl_allreduce(comm, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32, DDL_SUM), "not a live communicator");
  expectRefused(ddl_comm_destroy(comm), "not a live communicator");
  int rank = -1;
  expectRefused(ddl_comm_rank(reinterpret_cast<ddl_comm>(&buffer), &rank), "not a live communicator");  // never made
  EXPECT_EQ(rank, -1);
  EXPECT_EQ(ddl_comm_destroy(nullptr), DDL_SUCCESS);  // null is ignored, as free(NULL)
  // A communicator made afterwards has a handle of its own: the destroyed one never names it.
  ddl_comm next = nullptr;
  ASSERT_EQ(makeCommunicator(&next), DDL_SUCCESS) << ddl_last_error();
  EXPECT_NE(next, comm);
  expectRefused(ddl_comm_rank(comm, &rank), "not a live communicator");
  EXPECT_EQ(ddl_comm_destroy(next), DDL_SUCCESS);
}

TEST(LibraryVersion, IsTheProjectsVersion) {
  const std::string version = DDLSCALE_VERSION;  // "0.2.0", from CMake's project()
  const int major = std::atoi(version.c_str());
  const int minor = std::atoi(version.c_str() + version.find('.') + 1);
  const int patch = std::atoi(version.c_str() + version.rfind('.') + 1);
  EXPECT_EQ(ddl_version(), major * 10000 + minor * 100 + patch);
}

TEST(LibraryInit, RefusesANullCommunicator) {
  ddl_comm comm = nullptr;
  expectRefused(ddl_comm_init_mpi(MPI_COMM_NULL, &comm), "mpi_comm");
  EXPECT_EQ(comm, nullptr);
  EXPECT_EQ(ddl_comm_destroy(nullptr), DDL_SUCCESS);
}

#ifndef DDLSCALE_WITH_CUDA
// Built with CUDA, library_nccl_tests holds ddl_comm_init_nccl to what it does with a GPU and without one.
TEST(LibraryInit, GpuMemoryIsUnsupportedOnABuildWithoutCuda) {
  ddl_comm comm = nullptr;
  EXPECT_EQ(ddl_comm_init_nccl(MPI_COMM_WORLD, &comm), DDL_UNSUPPORTED);
  EXPECT_NE(std::string(ddl_last_error()).find("built without CUDA"), std::string::npos) << ddl_last_error();
  EXPECT_EQ(comm, nullptr);
}
#endif

TEST(LibraryInit, RefusesTcpArgumentsThatNameNoRankOrNoAddressBeforeConnecting) {
  ddl_comm comm = nullptr;
  expectRefused(ddl_comm_init_tcp(0, 0, "127.0.0.1:29500", &comm), "ddl_comm_init_tcp: size: 0");
  expectRefused(ddl_comm_init_tcp(2, 2, "127.0.0.1:29500", &comm), "ddl_comm_init_tcp: rank: 2 is not one of 0..1");
  expectRefused(ddl_comm_init_tcp(-1, 2, "127.0.0.1:29500", &comm), "rank");
  expectRefused(ddl_comm_init_tcp(0, 2, nullptr, &comm), "root_address: a null string");
  expectRefused(ddl_comm_init_tcp(0, 2, "127.0.0.1", &comm), "root_address: '127.0.0.1' is not host:port");
  expectRefused(ddl_comm_init_tcp(0, 2, "127.0.0.1:70000", &comm), "root_address: port 70000");
  expectRefused(ddl_comm_init_tcp(0, 1, "127.0.0.1:29500", nullptr), "comm: a null pointer");
  ::setenv("DDLSCALE_TCP_EAGER_LIMIT", "lots", 1);
  expectRefused(ddl_comm_init_tcp(0, 1, "127.0.0.1:29500", &comm), "DDLSCALE_TCP_EAGER_LIMIT");
  ::unsetenv("DDLSCALE_TCP_EAGER_LIMIT");
  EXPECT_EQ(comm, nullptr);
}

TEST(LibraryInit, TcpRanksThatDisagreeOnTheSizeAllFailNamingIt) {
  if (worldSize() < 2) GTEST_SKIP() << "needs two ranks";
  ddl_comm comm = nullptr;
  const std::string address = rootAddress();  // every rank, collectively
  const int size = worldRank() == 1 ? worldSize() + 1 : worldSize();
  expectRefused(ddl_comm_init_tcp(worldRank(), size, address.c_str(), &comm), "size: rank 1 (from 127.0.0.1:");
  EXPECT_NE(std::string(ddl_last_error()).find("says the job has " + std::to_string(worldSize() + 1) + " ranks"), std::string::npos)
      << ddl_last_error();
  EXPECT_EQ(comm, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  const bool single = argc > 1 && std::strcmp(argv[argc - 1], "--thread-single") == 0;
  overTcp = argc > 1 && std::strcmp(argv[argc - 1], "--tcp") == 0;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
  if (!single && provided != MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "library_api_tests: MPI gives no MPI_THREAD_MULTIPLE: the threaded path cannot be tested\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ::testing::InitGoogleTest(&argc, argv);
  if (worldRank() != 0)
    delete ::testing::UnitTest::GetInstance()->listeners().Release(::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  int failed = RUN_ALL_TESTS() != 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
