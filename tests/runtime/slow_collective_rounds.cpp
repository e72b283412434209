// A library collective that outlasts --timeout-s many times over, and whose ranks arrive at it and leave it
// at different times, must let the job go on: every roll call the ranks' watchdogs hold while it lasts
// ends with every rank answering, however the roll calls of different ranks overlap.
//
// Run under mpirun with 2 or more ranks: SLOW_COLLECTIVE_ROUNDS TRIALS. Each trial, every rank enters the
// watched wait of a library collective at its own time, keeps its core busy for a time of its own (a rank
// summing its share), then meets the others in an MPI_Barrier, all inside the wait: with a 200 ms timeout,
// each trial holds some eight roll calls, called by whichever rank's deadline passes first. Exits 0 when
// every trial ends; a roll call that loses an answer ends the job through MPI_Abort, which mpirun reports.

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "runtime/mpi/silence_watchdog.hpp"

namespace {

// Keeps this rank's core busy, as a rank that sums its share of a collective does.
void busyFor(std::chrono::milliseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  volatile double sum = 0;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 10000; ++i) sum = sum + i * 0.5;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (rank == 0) std::fprintf(stderr, "slow_collective_rounds: this MPI does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return 77;
  }
  const int trials = argc > 1 ? std::atoi(argv[1]) : 3;
  {
    ddl::SilenceWatchdog watchdog(MPI_COMM_WORLD, std::chrono::milliseconds(200), provided);
    for (int trial = 0; trial < trials; ++trial) {
      MPI_Barrier(MPI_COMM_WORLD);
      // Rank r arrives 40 ms after rank r - 1 and is busy 1200 ms + 130 ms per rank, different each trial.
      std::this_thread::sleep_for(std::chrono::milliseconds(40 * ((rank + trial) % ranks)));
      ddl::SilenceWatchdog::Wait wait(watchdog, "a slow collective", ddl::SilenceWatchdog::Patience::WhileEveryRankWaitsToo);
      busyFor(std::chrono::milliseconds(1200 + 130 * ((rank * 3 + trial) % ranks)));
      MPI_Barrier(MPI_COMM_WORLD);
    }
    auto last = watchdog.waitingIn("the last barrier");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) std::printf("slow_collective_rounds: %d trials of %d ranks went on to the end\n", trials, ranks);
  MPI_Finalize();
  return 0;
}
