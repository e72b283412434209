#pragma once
// A ddlrun subcommand, in the order ddlrun's main calls it: its flags are parsed, check() runs before MPI
// starts (so that bad input ends every rank with status 2 before any of them waits for another), and run()
// runs on every rank of the job.

#include <chrono>

#include "runtime/job_launcher.hpp"

namespace ddl {

class DdlrunCommand {
 public:
  virtual ~DdlrunCommand() = default;
  virtual bool chosen() const = 0;
  // Throws InvalidArgument naming the option or file at fault.
  virtual void check() = 0;
  // How long the job waits for a silent peer (--timeout-s): also the deadline of MPI_Init and MPI_Finalize.
  virtual std::chrono::milliseconds timeout() const = 0;
  // `mpiRanks` is the size of MPI_COMM_WORLD; InvalidArgument for options that do not fit it. Returns the
  // exit status.
  virtual int run(int mpiRanks, SilenceWatchdog* watchdog) = 0;
};

}  // namespace ddl
