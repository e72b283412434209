// libddlscale's C API under mpirun (tests/runtime/library_api_fixture.hpp), what it refuses: every bad
// argument is DDL_INVALID_ARGUMENT with a message naming it, having touched nothing; ranks that disagree on a
// root, a type, a count or an algorithm are refused by every rank and the communicator stays right; a handle
// used after it was destroyed is refused, not followed; and the TCP transport's bad arguments and sizes.

#include <mpi.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ddlscale/ddlscale.h"

#include "tests/runtime/library_api_fixture.hpp"

namespace {

using namespace ddl::testing;  // the fixture, the job's ranks and the shared checks

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
