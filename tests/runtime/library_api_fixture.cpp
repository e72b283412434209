#include "tests/runtime/library_api_fixture.hpp"

#include <mpi.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace ddl::testing {
namespace {

bool overTcp = false;

}  // namespace

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

float sumOf(std::size_t index, int ranks) {
  float sum = 0;
  for (int r = 0; r < ranks; ++r) sum += valueOf(index, r);
  return sum;
}

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

void expectRefused(ddl_result result, const std::string& field) {
  EXPECT_EQ(result, DDL_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ddl_last_error()).find(field), std::string::npos) << "'" << ddl_last_error() << "' names no " << field;
}

}  // namespace ddl::testing

int main(int argc, char** argv) {
  const bool single = argc > 1 && std::strcmp(argv[argc - 1], "--thread-single") == 0;
  ddl::testing::overTcp = argc > 1 && std::strcmp(argv[argc - 1], "--tcp") == 0;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
  if (!single && provided != MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "library_api_tests: MPI gives no MPI_THREAD_MULTIPLE: the threaded path cannot be tested\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ::testing::InitGoogleTest(&argc, argv);
  if (ddl::testing::worldRank() != 0)
    delete ::testing::UnitTest::GetInstance()->listeners().Release(::testing::UnitTest::GetInstance()->listeners().default_result_printer());
  int failed = RUN_ALL_TESTS() != 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
