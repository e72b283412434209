#pragma once
// NCCL's ranks as the processes of an MPI communicator, each on the GPU of its index among the processes of
// its node: MPI broadcasts the unique id and aborts the job; the watchdog, where there is one, watches every
// blocking call.

#include <mpi.h>

#include "runtime/mpi/silence_watchdog.hpp"
#include "runtime/nccl/nccl_bootstrap.hpp"

namespace ddl {

class NcclMpiBootstrap final : public NcclBootstrap {
 public:
  explicit NcclMpiBootstrap(MPI_Comm communicator, SilenceWatchdog* watchdog = nullptr);
  Rank rank() const override { return rank_; }
  int size() const override { return size_; }
  int device(int devices) override;
  ncclUniqueId uniqueId() override;
  std::unique_ptr<Waiting> waitingIn(const char* what, bool everyRankWaitsToo) override;
  [[noreturn]] void endJob(const std::string& message) override;

 private:
  MPI_Comm communicator_;
  SilenceWatchdog* watchdog_;
  Rank rank_ = 0;
  int size_ = 1;
};

}  // namespace ddl
