#include "runtime/launch/run_flags.hpp"

#include <limits>

#include "common/byte_sizes.hpp"
#include "common/cli_checks.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/launcher_environment.hpp"
#include "common/machine_memory.hpp"
#include "common/number_text.hpp"

namespace ddl {

void RunFlags::addTo(CLI::App* command) {
  std::string help = "Where the ranks run and how they move bytes:";
  for (const TransportEntry& entry : transports())
    help += "\n  " + std::string(entry.name) + ": " + std::string(entry.summary) + (entry.launch ? "" : " [not in this build]");
  command->add_option("--transport", transport_, help)->capture_default_str();
  command->add_option("--ranks", ranks_, "With --transport threads, cuda-peer or nccl-threads: the number of ranks")
      ->check(CLI::Range(1, 1024));
  command->add_option("-g,--gpus-per-process,--ngpus", gpusPerProcess_,
                      "nccl-tests' -g: each rank is one process with one GPU under mpirun, so 1 there; with threads, "
                      "cuda-peer or nccl-threads, another name for --ranks")
      ->check(CLI::Range(1, 1024));
  command->add_option("--piece-bytes", pieceBytes_, "Split steps into pieces of at most this size, pipelined")
      ->capture_default_str();
  command->add_option("-T,--timeout-s,--timeout", timeoutSeconds_,
                      "End the job, naming the silent rank, if any wait on other ranks lasts this long (a peer died, "
                      "stopped or hangs)")
      ->check(finiteIn(1, 86400))
      ->capture_default_str();
  command->add_flag("--dry-run", dryRun_,
                    "Check the options and the input against the job mpirun or srun started (or --ranks), estimate the "
                    "memory the ranks on this machine would hold, print it, and run nothing: no MPI, no buffers");
}

const TransportEntry& RunFlags::transport() const { return findTransport(transport_); }

int RunFlags::ranks() const {
  if (gpusPerProcess_ == 0) return ranks_;
  if (!transport().inOneProcess) {
    if (gpusPerProcess_ != 1)
      throw InvalidArgument("--gpus-per-process", std::to_string(gpusPerProcess_) + ": under mpirun each rank is one process "
                                                  "with one GPU, so -g 1; mpirun -np sets the ranks");
    return ranks_;
  }
  if (ranks_ != 0 && ranks_ != gpusPerProcess_)
    throw InvalidArgument("--gpus-per-process", std::to_string(gpusPerProcess_) + " disagrees with --ranks " +
                                                    std::to_string(ranks_) + ": give one of them");
  return gpusPerProcess_;
}

JobOptions RunFlags::job(SilenceWatchdog* watchdog) const { return {ranks(), watchdog}; }

RunOptions RunFlags::run() const {
  const std::int64_t piece = parseByteSize(pieceBytes_, "--piece-bytes");
  if (piece < 1) throw InvalidArgument("--piece-bytes", "must be at least 1");
  // One MPI message carries at most INT_MAX bytes.
  if (piece > std::numeric_limits<int>::max())
    throw InvalidArgument("--piece-bytes", "'" + pieceBytes_ + "' is more than one message carries, 2147483647 bytes");
  return {static_cast<std::size_t>(piece), timeout()};
}

void RunFlags::requirePiecesFor(double largestStepBytes) const {
  const double piece = static_cast<double>(run().pieceBytes);
  if (largestStepBytes / piece > static_cast<double>(kMaxPiecesPerStep))
    throw InvalidArgument("--piece-bytes", shortNumber(piece) + "-byte pieces of a " + formatBytes(largestStepBytes) +
                                               " buffer would post up to " + shortNumber(largestStepBytes / piece) +
                                               " messages at once; at most " + std::to_string(kMaxPiecesPerStep));
}

std::chrono::milliseconds RunFlags::timeout() const {
  return std::chrono::milliseconds(static_cast<std::int64_t>(timeoutSeconds_ * 1000));
}

void RunFlags::requireMemoryPerRank(double bytesPerRank, const std::string& field, const std::string& what) {
  // A thread's stack is RLIMIT_STACK's size of address space, 8 MiB by default: one per rank in one
  // process, and the watchdog's.
  constexpr double kThreadStackBytes = 8.0 * 1024 * 1024;
  const int here = ranksOnThisHost();
  const int inThisProcess = transport().inOneProcess ? here : 1;
  requireMemory(bytesPerRank * here, field, what + " on " + std::to_string(here) + " rank(s) of this machine",
                bytesPerRank * inThisProcess + kThreadStackBytes * (inThisProcess + 1));
  estimate_ = MemoryEstimate{bytesPerRank, here, what};
}

std::string RunFlags::dryRunReport(const std::string& command) const {
  std::string report = command + ": the options and the input hold; ";
  if (!estimate_) return report + "nothing run (--dry-run)";
  return report + std::to_string(estimate_->ranksHere) + " rank(s) on this machine, each about " +
         formatBytes(estimate_->bytesPerRank) + " for " + estimate_->what + ", " +
         formatBytes(estimate_->bytesPerRank * estimate_->ranksHere) + " in all of " +
         formatBytes(static_cast<double>(availableMemoryBytes())) + " available; nothing run (--dry-run)";
}

int RunFlags::ranksOnThisHost() const {
  return transport().inOneProcess ? ranks() : launcherRanksOnThisHost();
}

}  // namespace ddl
