// ddlrun: runs ddlscale's collective schedules on real hardware, under mpirun (or srun) over MPI or NCCL,
// or as ranks of one process over host memory, CUDA peer copies or NCCL: benchmarks in the manner of
// nccl-tests, and training iterations of a scenario.
//
// The order of things is what lets a job end cleanly whatever goes wrong: the command line is parsed and
// checked before MPI starts, on every rank alike, so bad input ends the job with status 2 and nothing
// else; then the job runs (launch/ddlrun_job.hpp: under MPI, or in this process alone in a build without it).

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
#include "runtime/bench/bench_command.hpp"
#include "runtime/launch/ddlrun_job.hpp"
#include "runtime/launch/job_launcher.hpp"
#include "common/fault_injection.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  ddl::prepareProcessForGpus();  // before anything makes a CUDA context
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
    // Each message in one write: mpirun interleaves its own notices between a rank's writes.
    if (speaksForItsCommandLine(launchRank)) std::cerr << "ddlrun: " + std::string(error.what()) + " (see ddlrun --help)\n";
    return 2;
  } catch (const ddl::InvalidArgument& error) {
    if (speaksForItsCommandLine(launchRank)) std::cerr << "ddlrun: " + std::string(error.what()) + "\n";
    return 2;
  }

  ddl::freezeIfAsked("init", launchRank);
  return ddl::runJob(*command, argc, argv, launchRank, sizeFromLauncher());
}
