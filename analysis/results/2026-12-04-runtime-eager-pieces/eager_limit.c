// Where Open MPI's shared-memory transport stops sending eagerly: 20,000 exchanges of two ranks at each
// message size around its 4096-byte eager limit (which counts the headers that travel with the data).
//
//   mpicc -O2 eager_limit.c -o eager_limit && mpirun -np 2 ./eager_limit
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  int provided, rank; MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* a = calloc(8192, 1); char* b = calloc(8192, 1);
  int sizes[] = {4000, 4040, 4056, 4064, 4072, 4080, 4088, 4096};
  for (int s = 0; s < 8; ++s) {
    int n = sizes[s];
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < 20000; ++i) {
      MPI_Request r[2];
      MPI_Irecv(b, n, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &r[0]);
      MPI_Isend(a, n, MPI_BYTE, 1 - rank, 0, MPI_COMM_WORLD, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    if (rank == 0) printf("%d bytes: %.2f us per exchange\n", n, (MPI_Wtime() - t) / 20000 * 1e6);
  }
  MPI_Finalize();
}
