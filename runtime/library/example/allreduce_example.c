/* A program built against the installed libddlscale, as a framework would be: each rank allreduces a
 * vector of its own values with the algorithm given on the command line, while it goes on computing, and
 * checks the sum; then a broadcast, an all-gather, a reduce-scatter taking each block's maximum, a message
 * passed round the ring of ranks, an all-to-all, and a count of wrong elements summed in int32. Exit status
 * 0 where every rank's result is exact.
 *
 *   mpirun -np 4 allreduce_example [ALGORITHM [OPTIONS]]     (default: ring; "ddl" "dims=2x2", ...)
 *   allreduce_example --tcp RANK SIZE HOST:PORT [ALGORITHM [OPTIONS]]
 *
 * With --tcp, no MPI: start one process per rank, each with its rank, and rank 0 listens at HOST:PORT.
 */
#include <ddlscale/ddlscale.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int overTcp = 0;

/* A failed call ends the job: over MPI, all of it; over TCP, this rank, whose peers then end too. */
static void check(ddl_result result) {
  if (result == DDL_SUCCESS) return;
  fprintf(stderr, "allreduce_example: %s\n", ddl_last_error());
  if (!overTcp) MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}
#define CHECK(call) check(call)

int main(int argc, char** argv) {
  ddl_comm comm;
  overTcp = argc > 1 && strcmp(argv[1], "--tcp") == 0;
  if (overTcp) {
    if (argc < 5) {
      fprintf(stderr, "usage: allreduce_example --tcp RANK SIZE HOST:PORT [ALGORITHM [OPTIONS]]\n");
      return 2;
    }
    CHECK(ddl_comm_init_tcp(atoi(argv[2]), atoi(argv[3]), argv[4], &comm));
    argc -= 4;
    argv += 4;
  } else {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(ddl_comm_init_mpi(MPI_COMM_WORLD, &comm));
  }
  int rank = 0, size = 1;
  CHECK(ddl_comm_rank(comm, &rank));
  CHECK(ddl_comm_size(comm, &size));
  const char* algorithm = argc > 1 ? argv[1] : "ring";
  CHECK(ddl_comm_set_algorithm(comm, DDL_ALLREDUCE, algorithm, argc > 2 ? argv[2] : NULL));

  enum { kCount = 100003 };
  float* gradients = malloc(sizeof(float) * kCount);
  for (int i = 0; i < kCount; ++i) gradients[i] = (float)((i + rank) % 7);
  ddl_request request;
  CHECK(ddl_iallreduce(comm, gradients, gradients, kCount, DDL_FLOAT32, DDL_SUM, &request));
  double busy = 0; /* what a framework does meanwhile: the next layer's backward pass */
  for (int i = 0; i < 1000000; ++i) busy += i * 1e-9;
  CHECK(ddl_wait(request));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i) {
    float expected = 0;
    for (int r = 0; r < size; ++r) expected += (float)((i + r) % 7);
    wrong += gradients[i] != expected;
  }

  double parameters[3] = {rank == 0 ? 1.5 : 0, rank == 0 ? -2.25 : 0, rank == 0 ? 1e300 : 0};
  CHECK(ddl_broadcast(comm, parameters, 3, DDL_FLOAT64, 0));
  wrong += parameters[0] != 1.5 || parameters[1] != -2.25 || parameters[2] != 1e300;

  float mine = (float)rank;
  float* gathered = malloc(sizeof(float) * (size_t)size);
  CHECK(ddl_allgather(comm, &mine, gathered, 1, DDL_FLOAT32));
  for (int r = 0; r < size; ++r) wrong += gathered[r] != (float)r;

  /* A sharded optimizer's reduce-scatter: rank r keeps block r of the element-wise maximum. */
  enum { kBlock = 1000 };
  int* shards = malloc(sizeof(int) * kBlock * (size_t)size);
  int mineMax[kBlock];
  for (int i = 0; i < kBlock * size; ++i) shards[i] = (i * 31 + rank * 17) % 1009 - 500;
  CHECK(ddl_reduce_scatter(comm, shards, mineMax, kBlock, DDL_INT32, DDL_MAX));
  for (int i = 0; i < kBlock; ++i) {
    const int at = rank * kBlock + i;
    int expected = (at * 31) % 1009 - 500;
    for (int r = 1; r < size; ++r) {
      const int value = (at * 31 + r * 17) % 1009 - 500;
      if (value > expected) expected = value;
    }
    wrong += mineMax[i] != expected;
  }
  free(shards);

  /* Point-to-point round the ring: even ranks send first, so no two ranks wait on each other. */
  if (size > 1) {
    long long token = 1000 + rank, heard = -1;
    const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    ddl_request sent;
    CHECK(ddl_isend(comm, &token, 1, DDL_INT64, next, 7, &sent));
    CHECK(ddl_recv(comm, &heard, 1, DDL_INT64, previous, 7));
    CHECK(ddl_wait(sent));
    wrong += heard != 1000 + previous;
    /* Every other rank reports to rank 0, which takes the reports as they come, from any rank. */
    if (rank != 0) {
      CHECK(ddl_send(comm, &token, 1, DDL_INT64, 0, 8));
    } else {
      for (int k = 1; k < size; ++k) {
        int source = -1;
        CHECK(ddl_recv_any(comm, &heard, 1, DDL_INT64, 8, &source));
        wrong += source < 1 || source >= size || heard != 1000 + source;
      }
    }
  }

  /* All-to-all: rank r sends the value 100 r + q to rank q, one element each. */
  size_t* ones = malloc(sizeof(size_t) * (size_t)size);
  size_t* offsets = malloc(sizeof(size_t) * (size_t)size);
  int* outgoing = malloc(sizeof(int) * (size_t)size);
  int* incoming = malloc(sizeof(int) * (size_t)size);
  for (int q = 0; q < size; ++q) {
    ones[q] = 1;
    offsets[q] = (size_t)q;
    outgoing[q] = 100 * rank + q;
  }
  CHECK(ddl_alltoallv(comm, outgoing, ones, offsets, incoming, ones, offsets, DDL_INT32));
  for (int q = 0; q < size; ++q) wrong += incoming[q] != 100 * q + rank;
  free(ones);
  free(offsets);
  free(outgoing);
  free(incoming);
  CHECK(ddl_barrier(comm));

  char description[64];
  CHECK(ddl_comm_describe(comm, DDL_ALLREDUCE, sizeof(float) * kCount, description, sizeof description));
  /* Rank 0 reports every rank's count of wrong elements, summed by the library; each rank's exit status is
   * its own count's. */
  int wrongEverywhere = wrong;
  CHECK(ddl_allreduce(comm, &wrongEverywhere, &wrongEverywhere, 1, DDL_INT32, DDL_SUM));
  if (rank == 0)
    printf("allreduce_example: %s on %d ranks, libddlscale %d: %d wrong elements (%g)\n", description, size,
           ddl_version(), wrongEverywhere, busy);
  free(gathered);
  free(gradients);
  CHECK(ddl_comm_destroy(comm));
  if (!overTcp) MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
