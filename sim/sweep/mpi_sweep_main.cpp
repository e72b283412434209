// ddlsim-mpi: what each rank of `mpirun -np K ddlsim SCENARIO ...` becomes. ddlsim cannot be an MPI program
// itself (SimGrid's library defines MPI's symbols for SMPI), so a ddlsim that finds itself a rank of an MPI
// job of more than one rank executes this program in its place (same process, same rank), which:
//
//   1. runs `ddlsim ARGS --share R/K --share-out FILE`: this rank's share of the sweep's simulations
//      (every K-th from R), each in a fresh process as ever, into a values file on this rank's machine;
//   2. agrees with the other ranks on how that went: where a rank failed, the job exits with the status of
//      the lowest rank that failed, and only the lowest one's messages are shown (they are the same
//      everywhere for bad input, which every rank finds);
//   3. gathers the values files on rank 0 over MPI (no shared file system needed), where
//      `ddlsim ARGS --sweep-values FILES...` writes the results (--out, --json, --plot, --trace ...) as one
//      process would have, byte for byte; its status is the job's, on every rank.
//
// Before any of it, the ranks check that they were started with one command line: ranks given different
// scenarios or options would simulate shares of different sweeps and merge them in silence.
//
// Usage is ddlsim's: mpirun -np K ddlsim SCENARIO [options]. Each rank's ddlsim runs --jobs simulations at
// once (default: its machine's cores), so give -j where ranks share a machine.
//
// No wait on another rank is without a deadline: a rank that stops (a node lost, a process frozen) would
// otherwise hold the others in MPI forever, after rank 0 had printed the results even. Shares are every
// K-th simulation, so they take about as long: a rank waits for the others' shares up to ten times its own
// plus a margin, and for each step after them up to the margin alone (60 s; DDLSIM_MPI_PATIENCE_S sets it),
// then ends the job (MPI_Abort, status 3) naming the step.

#include <fcntl.h>
#include <mpi.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/fault_injection.hpp"
#include "common/mpi_command_line.hpp"

extern char** environ;

namespace {

// Runs `program` with `arguments` (its own environment, plus DDLSIM_MPI_RANK=1 so that it does not come
// back here), its standard error into `errorFile` if given; returns its exit status (128 + a signal).
int runAndWait(const std::string& program, const std::vector<std::string>& arguments, const std::string& errorFile) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  setenv("DDLSIM_MPI_RANK", "1", 1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!errorFile.empty()) posix_spawn_file_actions_addopen(&actions, 2, errorFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) {
    std::fprintf(stderr, "ddlsim-mpi: cannot run %s: %s\n", program.c_str(), std::strerror(spawned));
    return 2;
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits for `request` until `deadline`, or ends the job saying that `what` did not end in time.
void waitUntil(MPI_Request& request, std::chrono::steady_clock::time_point deadline, int rank, const std::string& what) {
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "ddlsim-mpi: rank %d: %s did not end in time: a rank stopped or was lost; ending the job\n",
                   rank, what.c_str());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// The margin every wait on the other ranks gets: DDLSIM_MPI_PATIENCE_S seconds, else 60.
std::chrono::duration<double> patience() {
  const char* given = std::getenv("DDLSIM_MPI_PATIENCE_S");
  const double seconds = given ? std::atof(given) : 0;
  return std::chrono::duration<double>(seconds > 0 ? seconds : 60);
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const char* given = std::getenv("DDLSIM_PROGRAM");  // set by the ddlsim that executed this program
  const std::string ddlsim = given ? given : (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "ddlsim").string();
  const std::vector<std::string> arguments(argv + 1, argv + argc);

  using Clock = std::chrono::steady_clock;
  const auto margin = std::chrono::duration_cast<Clock::duration>(patience());
  // 0. One experiment: every rank started with the same arguments (bad input: status 2, and nothing run).
  ddl::freezeIfAsked("start", rank);
  const auto disagreement = ddl::commandLineDisagreement(MPI_COMM_WORLD, arguments, [&](MPI_Request& request, const char* what) {
    waitUntil(request, Clock::now() + margin, rank, what);
  });
  if (disagreement) {
    if (rank == 0) std::fprintf(stderr, "ddlsim: %s\n", disagreement->c_str());
    MPI_Finalize();  // every rank found the same, after three collectives that all completed
    return 2;
  }

  char folderTemplate[] = "/tmp/ddlsim-mpi-XXXXXX";
  const char* folderMade = mkdtemp(folderTemplate);
  int status = folderMade ? 0 : 2;
  if (!folderMade) std::perror("ddlsim-mpi: a temporary folder");
  const std::string folder = folderMade ? folderMade : "";
  const std::string share = folder + "/share.json", errors = folder + "/stderr";

  // 1. This rank's share; rank 0's messages go straight to the job's standard error.
  const Clock::time_point shareStarted = Clock::now();
  if (status == 0) {
    std::vector<std::string> shareArguments = arguments;
    shareArguments.insert(shareArguments.end(), {"--share", std::to_string(rank) + "/" + std::to_string(ranks), "--share-out", share});
    status = runAndWait(ddlsim, shareArguments, rank == 0 ? "" : errors);
  }

  // 2. Every rank's status; the lowest failing rank speaks for the job.
  std::vector<int> statuses(static_cast<std::size_t>(ranks));
  const Clock::duration shareTime = Clock::now() - shareStarted;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(&status, 1, MPI_INT, statuses.data(), 1, MPI_INT, MPI_COMM_WORLD, &request);
  waitUntil(request, Clock::now() + 10 * shareTime + margin, rank, "waiting for the other ranks' shares of the sweep");
  int failing = -1;
  for (int r = 0; r < ranks && failing < 0; ++r)
    if (statuses[static_cast<std::size_t>(r)] != 0) failing = r;
  int result = 0;
  if (failing >= 0) {
    if (rank == failing && rank != 0) std::fputs(readWhole(errors).c_str(), stderr);
    result = statuses[static_cast<std::size_t>(failing)];
  } else {
    // 3. The values on rank 0, and the results from them.
    const std::string mine = readWhole(share);
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
    MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
    waitUntil(request, Clock::now() + margin, rank, "gathering the shares' sizes");
    std::string all;
    if (rank == 0) {
      int total = 0;
      for (int r = 0; r < ranks; ++r) {
        offsets[static_cast<std::size_t>(r)] = total;
        total += lengths[static_cast<std::size_t>(r)];
      }
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Igatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD,
                 &request);
    waitUntil(request, Clock::now() + margin, rank, "gathering the shares");
    ddl::freezeIfAsked("results", rank);
    if (rank == 0) {
      std::vector<std::string> resultArguments = arguments;
      resultArguments.push_back("--sweep-values");
      for (int r = 0; r < ranks; ++r) {
        const std::string path = folder + "/share-" + std::to_string(r) + ".json";
        std::ofstream(path, std::ios::binary)
            .write(all.data() + offsets[static_cast<std::size_t>(r)], lengths[static_cast<std::size_t>(r)]);
        resultArguments.push_back(path);
      }
      result = runAndWait(ddlsim, resultArguments, "");
    }
    // Rank 0 writes the results meanwhile (plots too): up to ten shares' time, as the shares themselves.
    MPI_Ibcast(&result, 1, MPI_INT, 0, MPI_COMM_WORLD, &request);
    waitUntil(request, Clock::now() + 10 * shareTime + margin, rank, "waiting for rank 0 to write the results");
  }
  if (!folder.empty()) std::filesystem::remove_all(folder);
  // MPI_Finalize waits for every rank too.
  ddl::freezeIfAsked("finalize", rank);
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  waitUntil(request, Clock::now() + margin, rank, "the last barrier before MPI_Finalize");
  MPI_Finalize();
  return result;
}
