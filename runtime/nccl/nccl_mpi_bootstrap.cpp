#include "runtime/nccl/nccl_mpi_bootstrap.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "runtime/nccl/nccl_transport.hpp"

namespace ddl {
namespace {

struct WatchdogWaiting final : NcclBootstrap::Waiting {
  WatchdogWaiting(SilenceWatchdog& watchdog, const char* what, SilenceWatchdog::Patience patience)
      : wait(watchdog, what, patience) {}
  SilenceWatchdog::Wait wait;
};

}  // namespace

NcclMpiBootstrap::NcclMpiBootstrap(MPI_Comm communicator, SilenceWatchdog* watchdog)
    : communicator_(communicator), watchdog_(watchdog) {
  MPI_Comm_rank(communicator_, &rank_);
  MPI_Comm_size(communicator_, &size_);
}

int NcclMpiBootstrap::device(int devices) {
  int local = 0, onThisNode = 1;
  {
    const auto wait = waitingIn("finding the ranks on this node (MPI_Comm_split_type)", true);
    MPI_Comm node;
    MPI_Comm_split_type(communicator_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &onThisNode);
    MPI_Comm_free(&node);
  }
  if (onThisNode > devices)
    throw TransportError(std::to_string(onThisNode) + " ranks on this node and " + std::to_string(devices) +
                         " GPUs visible: NCCL takes one GPU per rank (start at most " + std::to_string(devices) +
                         " processes per node)");
  return local;
}

ncclUniqueId NcclMpiBootstrap::uniqueId() {
  ncclUniqueId id{};
  if (rank_ == 0) DDL_NCCL(ncclGetUniqueId(&id));
  const auto wait = waitingIn("the broadcast of NCCL's unique id", true);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, communicator_);
  return id;
}

std::unique_ptr<NcclBootstrap::Waiting> NcclMpiBootstrap::waitingIn(const char* what, bool everyRankWaitsToo) {
  if (!watchdog_) return nullptr;
  return std::make_unique<WatchdogWaiting>(
      *watchdog_, what,
      everyRankWaitsToo ? SilenceWatchdog::Patience::WhileEveryRankWaitsToo : SilenceWatchdog::Patience::UntilTheTimeout);
}

void NcclMpiBootstrap::endJob(const std::string& message) {
  if (watchdog_) watchdog_->stopJob(message);
  std::fprintf(stderr, "ddlrun: rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(communicator_, 3);
  std::abort();  // MPI_Abort does not return
}

}  // namespace ddl
