// The floor under ddlrun at small sizes: a 2-rank allreduce written directly on MPI point-to-point, with
// nothing of ddlrun, timed beside MPI_Allreduce on the same buffer in the same job (3 rounds of each).
//
//   mpicc -O2 bare_exchanges.c -o bare_exchanges
//   mpirun -np 2 ./bare_exchanges ring BYTES ITERATIONS      # reduce-scatter then all-gather: two exchanges of BYTES/2
//   mpirun -np 2 ./bare_exchanges exchange BYTES ITERATIONS PIECES   # one exchange of BYTES in PIECES messages, then the sum
//
// Every exchange is MPI_Irecv + MPI_Isend polled with MPI_Testsome, as ddlrun's MPI transport waits, under
// MPI_THREAD_MULTIPLE, as ddlrun runs. Sums are of zeros: only the time is of interest.
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

static void add(float* into, const float* from, int count) {
  for (int i = 0; i < count; ++i) into[i] += from[i];
}

int main(int argc, char** argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int ring = argc > 1 && strcmp(argv[1], "ring") == 0;
  if (size != 2 || argc < 4 || (!ring && argc < 5)) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 2 %s ring BYTES ITERATIONS | exchange BYTES ITERATIONS PIECES\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int count = atoi(argv[2]) / 4, iterations = atoi(argv[3]), pieces = ring ? 2 : atoi(argv[4]);
  if (count < 2 || iterations < 1 || pieces < 1 || pieces > 64 || count % pieces != 0) {
    if (rank == 0) fprintf(stderr, "BYTES must be a multiple of 4 x PIECES, PIECES 1-64, ITERATIONS at least 1\n");
    MPI_Finalize();
    return 2;
  }
  float* buffer = calloc((size_t)count, 4);
  float* staging = calloc((size_t)count, 4);
  const int peer = 1 - rank, half = count / 2, piece = count / pieces;
  float* mine = buffer + (rank ? half : 0);   // the half this rank reduces in the ring
  float* theirs = buffer + (rank ? 0 : half);
  for (int round = 0; round < 3; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int it = 0; it < iterations; ++it) {
      MPI_Request requests[128];
      if (ring) {
        MPI_Irecv(staging, half * 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(theirs, half * 4, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &requests[1]);
        waitForAll(2, requests);
        add(mine, staging, half);
        MPI_Irecv(theirs, half * 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &requests[0]);
        MPI_Isend(mine, half * 4, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &requests[1]);
        waitForAll(2, requests);
      } else {
        for (int p = 0; p < pieces; ++p) {
          MPI_Irecv(staging + p * piece, piece * 4, MPI_BYTE, peer, p, MPI_COMM_WORLD, &requests[2 * p]);
          MPI_Isend(buffer + p * piece, piece * 4, MPI_BYTE, peer, p, MPI_COMM_WORLD, &requests[2 * p + 1]);
        }
        waitForAll(2 * pieces, requests);
        add(buffer, staging, count);
      }
    }
    const double bare = (MPI_Wtime() - start) / iterations;
    MPI_Barrier(MPI_COMM_WORLD);
    const double libraryStart = MPI_Wtime();
    for (int it = 0; it < iterations; ++it) MPI_Allreduce(MPI_IN_PLACE, buffer, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const double library = (MPI_Wtime() - libraryStart) / iterations;
    if (rank == 0)
      printf("%s %d bytes%s: %.2f us, MPI_Allreduce %.2f us\n", ring ? "ring" : "exchange", count * 4,
             ring ? "" : (pieces == 1 ? " in 1 message" : " in pieces"), bare * 1e6, library * 1e6);
  }
  free(buffer);
  free(staging);
  MPI_Finalize();
  return 0;
}
