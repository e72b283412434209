// ddlrun: runs ddlscale's collective schedules on real hardware, under mpirun (or srun) over MPI or NCCL,
// or as ranks of one process over host memory or CUDA peer copies: benchmarks in the manner of
// nccl-tests, and training iterations of a scenario.
//
// The order of things is what lets a job end cleanly whatever goes wrong: the command line is parsed and
// checked before MPI starts, on every rank alike, so bad input ends the job with status 2 and nothing
// else; MPI_Init and MPI_Finalize run under a deadline; and between them a SilenceWatchdog watches every
// wait on other ranks, so that a rank that stops answering ends the job, named, within --timeout-s.

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/cli_checks.hpp"
#include "common/invalid_argument.hpp"
#include "common/mpi_command_line.hpp"
#include "runtime/bench/bench_command.hpp"
#include "runtime/deadline_timer.hpp"
#include "common/fault_injection.hpp"
#include "runtime/mpi/silence_watchdog.hpp"
#include "runtime/train/train_command.hpp"

namespace {

// This process's rank as mpirun or srun told it, before MPI_Init: only rank 0 prints messages about the
// command line, not every rank once.
int rankFromLauncher() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return 0;
}

// The job's size as mpirun or srun told it, before MPI_Init: 1 where no launcher started this process.
int sizeFromLauncher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    if (const char* value = std::getenv(name); value && std::atoi(value) > 0) return std::atoi(value);
  return 1;
}

// Whether this process prints what is wrong with its command line, found before MPI starts. Every rank
// finds the same where all were given one line, so rank 0 alone speaks. A job of several app contexts
// (mpirun's "-np 1 ddlrun ... : -np 1 ddlrun ...") may give each its own line, and a context whose line is
// bad would end the job in silence: the first rank of each context speaks for its own (Open MPI says how
// many ranks each context has in OMPI_APP_CTX_NUM_PROCS, "1 1").
bool speaksForItsCommandLine(int launchRank) {
  if (launchRank == 0) return true;
  const char* contexts = std::getenv("OMPI_APP_CTX_NUM_PROCS");
  if (!contexts) return false;
  std::istringstream sizes(contexts);
  int first = 0;
  for (int size = 0; sizes >> size && size > 0; first += size)
    if (first == launchRank) return true;
  return false;
}

std::string seconds(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(timeout.count()) / 1000);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  const int launchRank = rankFromLauncher();
  CLI::App app{
      "ddlrun - run ddlscale's collective schedules on real hardware: under mpirun (or srun) over MPI or NCCL,\n"
      "or as ranks of one process over host memory or CUDA peer copies.\n\n"
      "  mpirun -np 8 ddlrun bench --algorithm ring -b 1K -e 64M --baseline mpi\n"
      "  mpirun -np 8 ddlrun bench --transport nccl --algorithm ddl --dims 2x4 -e 1G --baseline nccl\n"
      "  ddlrun bench --transport cuda-peer --ranks 8 --algorithm halving-doubling --type bfloat16\n"
      "  mpirun -np 8 ddlrun train scenarios/powerai-ddl-resnet50.json --compute-scale 0.1 --json"};
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 on success; 1 if a result was wrong; 2 on bad input (found before any rank waits for\n"
      "another); 3 if a peer died, failed or stopped answering (the job ends within --timeout-s, naming it).");
  ddl::BenchCommand bench(app);
  ddl::TrainCommand train(app);
  ddl::addVersionFlag(app, "ddlrun");
  ddl::DdlrunCommand* command = nullptr;
  try {
    ddl::requireKnownNames(app, argc, argv, false);
    app.parse(argc, argv);
    command = bench.chosen() ? static_cast<ddl::DdlrunCommand*>(&bench) : &train;
    command->check();
    if (command->dryRun()) {  // the job's checks too, at the size the launcher gives; every rank finds the same
      command->checkForJob(sizeFromLauncher());
      if (launchRank == 0) std::cout << command->dryRunReport() << std::endl;
      return 0;
    }
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return launchRank == 0 ? app.exit(error) : 0;  // --help, --version
    if (speaksForItsCommandLine(launchRank)) std::cerr << "ddlrun: " << error.what() << " (see ddlrun --help)\n";
    return 2;
  } catch (const ddl::InvalidArgument& error) {
    if (speaksForItsCommandLine(launchRank)) std::cerr << "ddlrun: " << error.what() << '\n';
    return 2;
  }

  const std::vector<std::string> arguments(argv + 1, argv + argc);  // before MPI_Init, which may take some
  ddl::freezeIfAsked("init", launchRank);
  const std::chrono::milliseconds timeout = command->timeout();
  int threadSupport = MPI_THREAD_SINGLE;
  {
    const ddl::DeadlineTimer deadline(timeout, "rank " + std::to_string(launchRank) + ": MPI_Init did not return within " +
                                                   seconds(timeout) +
                                                   ": a rank of the job did not start, or stopped while starting");
    // The watchdog's thread asks the other ranks while this one may be blocked in MPI: MPI_THREAD_MULTIPLE.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &threadSupport);
  }
  int rank = 0, mpiRanks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpiRanks);

  int status = 0;
  {
    ddl::SilenceWatchdog watchdog(MPI_COMM_WORLD, timeout, threadSupport);
    bool fits = true;
    try {
      const auto disagreement = ddl::commandLineDisagreement(MPI_COMM_WORLD, arguments, [&](MPI_Request& request, const char* what) {
        auto wait = watchdog.waitingIn(what);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      });
      if (disagreement) throw ddl::InvalidArgument("command line", *disagreement);
      command->checkForJob(mpiRanks);
    } catch (const ddl::InvalidArgument& error) {
      // Ranks started with different command lines, or options that do not fit the job's rank count: every
      // rank finds the same, so all get here.
      if (rank == 0) std::cerr << "ddlrun: " << error.what() << '\n';
      status = 2;
      fits = false;
    }
    // Inside the job, a rank that fails on its own would leave the others waiting for it: it ends the job.
    try {
      if (fits) status = command->launch(&watchdog);
    } catch (const ddl::InvalidArgument& error) {
      watchdog.failJob(error.what(), 2);
    } catch (const std::bad_alloc&) {
      watchdog.failJob("out of memory (the estimates before the run did not foresee it)", 3);
    } catch (const std::exception& error) {
      watchdog.failJob(std::string("internal error: ") + error.what(), 3);
    }
    // No rank enters MPI_Finalize, which waits for all, while another is stuck: this barrier names it.
    ddl::freezeIfAsked("finalize", rank);
    auto wait = watchdog.waitingIn("the last barrier before MPI_Finalize");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  {
    const ddl::DeadlineTimer deadline(timeout, "rank " + std::to_string(rank) + ": MPI_Finalize did not return within " +
                                                   seconds(timeout));
    MPI_Finalize();
  }
  return status;
}
