// libddlscale's C API (ddlscale/ddlscale.h) under mpirun, as a framework calls it: every allreduce algorithm
// that runs on this many ranks without options leaves every rank with the exact sum, in place and out of
// place, in every data type; requests complete in any order they are waited on; a broadcast copies the
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
  EXPECT_EQ(ddl_allreduce(comm, send.data(), out, count, DDL_FLOAT32), DDL_SUCCESS) << ddl_last_error();
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
    ASSERT_EQ(ddl_allreduce(comm_, buffer, buffer, count, type), DDL_SUCCESS) << ddl_last_error();
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

TEST_F(LibraryApi, RequestsCompleteWhicheverOrderTheyAreWaitedIn) {
  const std::size_t count = 20000;
  std::vector<std::vector<float>> buffers(4, std::vector<float>(count));
  std::vector<ddl_request> requests(buffers.size());
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    for (std::size_t i = 0; i < count; ++i) buffers[b][i] = valueOf(i + b, rank_);
    ASSERT_EQ(ddl_iallreduce(comm_, buffers[b].data(), buffers[b].data(), count, DDL_FLOAT32, &requests[b]), DDL_SUCCESS);
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
  EXPECT_EQ(ddl_allreduce(comm, halves.data(), halves.data(), halves.size(), rank == 1 ? DDL_BFLOAT16 : DDL_FLOAT16),
            DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("rank 0 calls allreduce of 64 float16"), std::string::npos) << ddl_last_error();
  EXPECT_NE(std::string(ddl_last_error()).find("rank 1 allreduce of 64 bfloat16"), std::string::npos) << ddl_last_error();
  EXPECT_EQ(halves, std::vector<std::uint16_t>(64, 0x3c00));
  std::vector<float> values(100, 1.0f);
  EXPECT_EQ(ddl_allreduce(comm, values.data(), values.data(), rank == 1 ? 99 : 100, DDL_FLOAT32), DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find("rank 1 allreduce of 99 float32 (the communicator's call 2)"),
            std::string::npos)
      << ddl_last_error();
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
  EXPECT_EQ(ddl_allreduce(comm_, other.data(), other.data(), other.size(), DDL_FLOAT32), DDL_INVALID_ARGUMENT);
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
  expectRefused(ddl_allreduce(comm_, nullptr, buffer.data(), buffer.size(), DDL_FLOAT32), "send");
  expectRefused(ddl_allreduce(comm_, buffer.data(), buffer.data(), buffer.size(), static_cast<ddl_datatype>(9)), "type");
  expectRefused(ddl_allreduce(comm_, buffer.data(), buffer.data(), buffer.size(), static_cast<ddl_datatype>(-1)), "type");
  expectRefused(ddl_allreduce(nullptr, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32), "comm");
  expectRefused(ddl_broadcast(comm_, buffer.data(), buffer.size(), DDL_FLOAT32, size_), "root");
  expectRefused(ddl_iallreduce(comm_, buffer.data(), buffer.data(), buffer.size(), DDL_FLOAT32, nullptr), "request");
  expectRefused(ddl_wait(nullptr), "request");
  for (const float value : buffer) EXPECT_EQ(value, 1.0f);
  // The communicator still works after every refusal, with the last good choice.
  EXPECT_EQ(wrongAfterAllreduce(comm_, 1000, rank_, size_, true), 0);
}

TEST(LibraryVersion, IsTheProjectsVersion) {
  const std::string version = DDLSCALE_VERSION;  // "0.1.0", from CMake's project()
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
