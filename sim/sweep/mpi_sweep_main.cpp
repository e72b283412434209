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
// Usage is ddlsim's: mpirun -np K ddlsim SCENARIO [options]. Each rank's ddlsim runs --jobs simulations at
// once (default: its machine's cores), so give -j where ranks share a machine.

#include <fcntl.h>
#include <mpi.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

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

  char folderTemplate[] = "/tmp/ddlsim-mpi-XXXXXX";
  const char* folderMade = mkdtemp(folderTemplate);
  int status = folderMade ? 0 : 2;
  if (!folderMade) std::perror("ddlsim-mpi: a temporary folder");
  const std::string folder = folderMade ? folderMade : "";
  const std::string share = folder + "/share.json", errors = folder + "/stderr";

  // 1. This rank's share; rank 0's messages go straight to the job's standard error.
  if (status == 0) {
    std::vector<std::string> shareArguments = arguments;
    shareArguments.insert(shareArguments.end(), {"--share", std::to_string(rank) + "/" + std::to_string(ranks), "--share-out", share});
    status = runAndWait(ddlsim, shareArguments, rank == 0 ? "" : errors);
  }

  // 2. Every rank's status; the lowest failing rank speaks for the job.
  std::vector<int> statuses(static_cast<std::size_t>(ranks));
  MPI_Allgather(&status, 1, MPI_INT, statuses.data(), 1, MPI_INT, MPI_COMM_WORLD);
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
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank == 0) {
      int total = 0;
      for (int r = 0; r < ranks; ++r) {
        offsets[static_cast<std::size_t>(r)] = total;
        total += lengths[static_cast<std::size_t>(r)];
      }
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
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
    MPI_Bcast(&result, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  if (!folder.empty()) std::filesystem::remove_all(folder);
  MPI_Finalize();
  return result;
}
