#pragma once
// MPI's own collectives as the `ddlrun bench --baseline mpi` figures: MPI_Allreduce, MPI_Reduce_scatter
// and MPI_Allgatherv, in place, with the schedules' balanced blocks. Host memory only.

#include <mpi.h>

#include "runtime/library_collectives.hpp"
#include "runtime/mpi/silence_watchdog.hpp"

namespace ddl {

class MpiCollectives final : public LibraryCollectives {
 public:
  // With a watchdog, a rank that never joins the collective ends the job, named.
  explicit MpiCollectives(MPI_Comm communicator, SilenceWatchdog* watchdog = nullptr);
  std::string name() const override { return "MPI"; }
  // MPI has no bfloat16 or float16, and counts elements in an int.
  bool available(CollectiveKind kind, Elements count, DataType type) const override;
  void run(CollectiveKind kind, void* buffer, Elements count, DataType type) override;

 private:
  MPI_Comm communicator_;
  SilenceWatchdog* watchdog_;
  int rank_ = 0;
  int ranks_ = 1;
};

}  // namespace ddl
