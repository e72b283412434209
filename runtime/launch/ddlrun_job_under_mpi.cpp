// ddlrun's job under MPI: MPI_Init and MPI_Finalize under a deadline, and between them a SilenceWatchdog
// watching every wait on other ranks. Every rank checks that all were given the same command line first.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "common/fault_injection.hpp"
#include "common/invalid_argument.hpp"
#include "common/mpi_command_line.hpp"
#include "runtime/deadline_timer.hpp"
#include "runtime/launch/ddlrun_job.hpp"
#include "runtime/mpi/silence_watchdog.hpp"

namespace ddl {
namespace {

std::string seconds(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(timeout.count()) / 1000);
  return text;
}

}  // namespace

int runJob(DdlrunCommand& command, int& argc, char**& argv, int launchRank, int) {
  const std::vector<std::string> arguments(argv + 1, argv + argc);  // before MPI_Init, which may take some
  const std::chrono::milliseconds timeout = command.timeout();
  int threadSupport = MPI_THREAD_SINGLE;
  {
    const DeadlineTimer deadline(timeout, "rank " + std::to_string(launchRank) + ": MPI_Init did not return within " +
                                              seconds(timeout) + ": a rank of the job did not start, or stopped while starting");
    // The watchdog's thread asks the other ranks while this one may be blocked in MPI: MPI_THREAD_MULTIPLE.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &threadSupport);
  }
  int rank = 0, mpiRanks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpiRanks);

  int status = 0;
  {
    SilenceWatchdog watchdog(MPI_COMM_WORLD, timeout, threadSupport);
    bool fits = true;
    try {
      const auto disagreement = commandLineDisagreement(MPI_COMM_WORLD, arguments, [&](MPI_Request& request, const char* what) {
        auto wait = watchdog.waitingIn(what);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      });
      if (disagreement) throw InvalidArgument("command line", *disagreement);
      command.checkForJob(mpiRanks);
    } catch (const InvalidArgument& error) {
      // Ranks started with different command lines, or options that do not fit the job's rank count: every
      // rank finds the same, so all get here.
      if (rank == 0) std::cerr << "ddlrun: " + std::string(error.what()) + "\n";  // one write: mpirun interleaves its notices
      status = 2;
      fits = false;
    }
    // Inside the job, a rank that fails on its own would leave the others waiting for it: it ends the job.
    try {
      if (fits) status = command.launch(&watchdog);
    } catch (const InvalidArgument& error) {
      watchdog.failJob(error.what(), 2);
    } catch (const std::bad_alloc&) {
      watchdog.failJob("out of memory (the estimates before the run did not foresee it)", 3);
    } catch (const std::exception& error) {
      watchdog.failJob(std::string("internal error: ") + error.what(), 3);
    }
    // No rank enters MPI_Finalize, which waits for all, while another is stuck: this barrier names it.
    freezeIfAsked("finalize", rank);
    auto wait = watchdog.waitingIn("the last barrier before MPI_Finalize");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  {
    const DeadlineTimer deadline(timeout, "rank " + std::to_string(rank) + ": MPI_Finalize did not return within " +
                                              seconds(timeout));
    MPI_Finalize();
  }
  // mpirun ends the job at the first rank that exits with a failure, and may drop what it has not yet
  // forwarded of the others' output: rank 0's message naming the fault (seen once in CI, 2026-12-07, a
  // --dims that did not fit 3 ranks: exit 2 and no message). The other ranks let rank 0 go first.
  if (status != 0 && rank != 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return status;
}

}  // namespace ddl
