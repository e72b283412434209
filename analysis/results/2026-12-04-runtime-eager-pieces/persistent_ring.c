// What setting up a request costs a small allreduce: the 2-rank ring (reduce-scatter, then all-gather, one
// exchange of BYTES/2 each) written on MPI point-to-point with MPI_Isend/MPI_Irecv, then with persistent
// requests (MPI_Send_init/MPI_Recv_init once, MPI_Startall every run), then MPI_Allreduce, in one job, five
// rounds. Polled with MPI_Testsome under MPI_THREAD_MULTIPLE, as ddlrun's MPI transport waits; sums of zeros.
//
//   mpicc -O2 persistent_ring.c -o persistent_ring
//   mpirun -np 2 ./persistent_ring BYTES ITERATIONS      (FUNNELED=1 in the environment: MPI_THREAD_FUNNELED)
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void waitForAll(int count, MPI_Request* requests) {
  int left = count, done, indices[128];
  while (left > 0) {
    MPI_Testsome(count, requests, &done, indices, MPI_STATUSES_IGNORE);
    if (done > 0) left -= done;
  }
}
static void add(float* into, const float* from, int count) { for (int i = 0; i < count; ++i) into[i] += from[i]; }
int main(int argc, char** argv) {
  int provided, rank, size;
  int level = getenv("FUNNELED") ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
  MPI_Init_thread(&argc, &argv, level, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = atoi(argv[1]) / 4, iterations = atoi(argv[2]);
  float* buffer = calloc((size_t)count, 4);
  float* staging = calloc((size_t)count, 4);
  const int peer = 1 - rank, half = count / 2;
  float* mine = buffer + (rank ? half : 0);
  float* theirs = buffer + (rank ? 0 : half);
  MPI_Request p1[2], p2[2];
  MPI_Recv_init(staging, half * 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &p1[0]);
  MPI_Send_init(theirs, half * 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &p1[1]);
  MPI_Recv_init(theirs, half * 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &p2[0]);
  MPI_Send_init(mine, half * 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &p2[1]);
  for (int round = 0; round < 5; ++round) {
    double t[3];
    for (int mode = 0; mode < 3; ++mode) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      for (int it = 0; it < iterations; ++it) {
        if (mode == 0) {
          MPI_Request r[2];
          MPI_Irecv(staging, half * 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r[0]);
          MPI_Isend(theirs, half * 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &r[1]);
          waitForAll(2, r);
          add(mine, staging, half);
          MPI_Irecv(theirs, half * 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
          MPI_Isend(mine, half * 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
          waitForAll(2, r);
        } else if (mode == 1) {
          MPI_Startall(2, p1);
          waitForAll(2, p1);
          add(mine, staging, half);
          MPI_Startall(2, p2);
          waitForAll(2, p2);
        } else {
          MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        }
      }
      t[mode] = (MPI_Wtime() - start) / iterations * 1e6;
    }
    if (rank == 0) printf("%d bytes: isend %.2f us, persistent %.2f us, MPI_Allreduce %.2f us\n", count * 4, t[0], t[1], t[2]);
  }
  MPI_Finalize();
  return 0;
}
