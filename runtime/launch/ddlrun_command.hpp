#pragma once
// A ddlrun subcommand, in the order ddlrun's main calls it: its flags are parsed, check() runs before MPI
// starts (so that bad input ends every rank with status 2 before any of them waits for another), and run()
// runs on every rank of the job.

#include <chrono>

#include <CLI/CLI.hpp>

#include "runtime/launch/job_launcher.hpp"
#include "runtime/launch/run_flags.hpp"

namespace ddl {

class DdlrunCommand {
 public:
  virtual ~DdlrunCommand() = default;
  bool chosen() const { return command_->parsed(); }
  // Throws InvalidArgument naming the option or file at fault.
  virtual void check() = 0;
  // --dry-run: after check(), main prints dryRunReport() and runs nothing.
  bool dryRun() const { return flags_.dryRun(); }
  std::string dryRunReport() const { return flags_.dryRunReport("ddlrun " + command_->get_name()); }
  // How long the job waits for a silent peer (--timeout-s, or more where a command's compute takes longer):
  // also the deadline of MPI_Init and MPI_Finalize. Valid after check().
  virtual std::chrono::milliseconds timeout() const { return flags_.timeout(); }
  // After MPI_Init, on every rank alike: InvalidArgument for options that do not fit the job's `mpiRanks`
  // (every rank finds the same, so every rank can end with status 2 without waiting for another).
  virtual void checkForJob(int mpiRanks) = 0;
  // Runs the job on this rank; returns its exit status. A rank that fails inside it ends the whole job.
  virtual int launch(SilenceWatchdog* watchdog) = 0;

 protected:
  // The subcommand `name` of `app`; the subclass adds its own flags to command_, then the shared ones with
  // flags_.addTo(command_).
  DdlrunCommand(CLI::App& app, const std::string& name, const std::string& description)
      : command_(app.add_subcommand(name, description)) {}

  CLI::App* command_;
  RunFlags flags_;
};

}  // namespace ddl
