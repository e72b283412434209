/* One MPI_Allreduce of BYTES bytes of floats, under SimGrid's SMPI, for analysis/bench_simulator: rank 0
 * prints the slowest rank's simulated time from a common start.
 *
 * The buffers are SMPI_SHARED_MALLOC'd (every rank's pages are the same few), so that 4096 ranks of 100 MB
 * fit in memory; the operation does nothing (a user operation: SMPI refuses MPI_NO_OP outside one-sided
 * calls), and the run is made with smpi/simulate-computation:no, so that SMPI neither executes nor charges
 * the sums: what is timed is SMPI's simulation of the communication, the fastest SMPI can be. ddlsim charges
 * each sum at the topology's reduce rate, which the script reports. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

static void add_nothing(void* in, void* inout, int* count, MPI_Datatype* type) {
  (void)in, (void)inout, (void)count, (void)type;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long long bytes = argc > 1 ? atoll(argv[1]) : 0;
  if (bytes <= 0 || bytes % 4 != 0 || bytes / 4 > 0x7fffffffLL) {
    if (rank == 0) fprintf(stderr, "smpi_allreduce: BYTES must be a positive multiple of 4 below 8 GiB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int count = (int)(bytes / 4);
  float* send = SMPI_SHARED_MALLOC((size_t)bytes);
  float* receive = SMPI_SHARED_MALLOC((size_t)bytes);
  MPI_Op nothing;
  MPI_Op_create(add_nothing, 1, &nothing);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Allreduce(send, receive, count, MPI_FLOAT, nothing, MPI_COMM_WORLD);
  double mine = MPI_Wtime() - start, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("simulated_s %.9g\n", slowest);
  MPI_Op_free(&nothing);
  SMPI_SHARED_FREE(send);
  SMPI_SHARED_FREE(receive);
  MPI_Finalize();
  return 0;
}
