#pragma once
// What the tests of libddlscale's C API under mpirun share: library_api_test.cpp (the collectives),
// library_messages_test.cpp (point-to-point and requests) and library_refusals_test.cpp (bad arguments,
// ranks that disagree, handles), one executable whose main is in library_api_fixture.cpp:
//
//   mpirun -np P library_api_tests [--thread-single | --tcp]
//
// With --thread-single, MPI is initialised without MPI_THREAD_MULTIPLE, and collectives run in the caller.
// With --tcp, every communicator is made by ddl_comm_init_tcp (MPI only tells the ranks where rank 0
// listens), so every test runs over the TCP transport.

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "ddlscale/ddlscale.h"
#include "tests/runtime/library_test_support.hpp"

namespace ddl::testing {

int worldRank();
int worldSize();
// Where rank 0 of a TCP communicator listens: a port free a moment ago, told to every rank (collective).
std::string rootAddress();
// A communicator of every rank: over MPI_COMM_WORLD, or with --tcp over the TCP transport (collective).
ddl_result makeCommunicator(ddl_comm* comm);

class LibraryApi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(makeCommunicator(&comm_), DDL_SUCCESS) << ddl_last_error(); }
  void TearDown() override { EXPECT_EQ(ddl_comm_destroy(comm_), DDL_SUCCESS); }
  ddl_comm comm_ = nullptr;
  const int rank_ = worldRank();
  const int size_ = worldSize();
};

// The sum over `ranks` ranks of valueOf(index, r).
float sumOf(std::size_t index, int ranks);
// Allreduces `count` float32 values in place (or out of place) and counts this rank's wrong elements.
int wrongAfterAllreduce(ddl_comm comm, std::size_t count, int rank, int ranks, bool inPlace);
// A bad argument: DDL_INVALID_ARGUMENT, a message naming `field`, and the buffer untouched.
void expectRefused(ddl_result result, const std::string& field);

}  // namespace ddl::testing
