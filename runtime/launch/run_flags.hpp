#pragma once
// The options every ddlrun subcommand takes: where its ranks run, how its steps are cut into pieces, and
// how long a silent peer is waited for.

#include <chrono>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/launch/transport_table.hpp"
#include "runtime/program_runner.hpp"

namespace ddl {

class RunFlags {
 public:
  void addTo(CLI::App* command);
  // InvalidArgument naming the option at fault.
  JobOptions job(SilenceWatchdog* watchdog) const;
  RunOptions run() const;
  std::chrono::milliseconds timeout() const;
  // The --transport entry; InvalidArgument naming the option if there is none of that name.
  const TransportEntry& transport() const;
  // How many of the job's ranks run on this machine: --ranks in one process, else what mpirun says.
  int ranksOnThisHost() const;
  // InvalidArgument(field, ...) unless every rank on this machine can have `bytesPerRank` of memory, and
  // this process the address space for its ranks and their threads' stacks.
  // The last estimate that passed is what --dry-run reports.
  void requireMemoryPerRank(double bytesPerRank, const std::string& field, const std::string& what);
  // --dry-run: check the options and the input, estimate, say what the run would hold, and run nothing.
  bool dryRun() const { return dryRun_; }
  // What --dry-run prints once check() has passed: the ranks on this machine and the memory they would hold.
  std::string dryRunReport(const std::string& command) const;
  // InvalidArgument("--piece-bytes", ...) if a step of `largestStepBytes` would be cut into more pieces than
  // kMaxPiecesPerStep: every piece of a step is posted at once, and beyond that a step's requests alone
  // would take gigabytes.
  void requirePiecesFor(double largestStepBytes) const;
  static constexpr std::int64_t kMaxPiecesPerStep = 1 << 16;

 private:
  std::string transport_ = "mpi";
  int ranks_ = 0;
  int gpusPerProcess_ = 0;  // nccl-tests' -g, where given
  int ranks() const;        // --ranks, or -g with an in-process transport
  std::string pieceBytes_ = "1M";
  double timeoutSeconds_ = 30;
  bool dryRun_ = false;
  struct MemoryEstimate {
    double bytesPerRank = 0;
    int ranksHere = 0;
    std::string what;
  };
  std::optional<MemoryEstimate> estimate_;
};

}  // namespace ddl
