#include "runtime/mpi/mpi_collectives.hpp"

#include <climits>
#include <cstring>
#include <optional>
#include <vector>

#include "common/fault_injection.hpp"

namespace ddl {
namespace {

MPI_Datatype mpiType(DataType type) {
  switch (type) {
    case DataType::Float32: return MPI_FLOAT;
    case DataType::Float64: return MPI_DOUBLE;
    case DataType::Int8: return MPI_INT8_T;
    case DataType::UInt8: return MPI_UINT8_T;
    case DataType::Int32: return MPI_INT32_T;
    case DataType::Int64: return MPI_INT64_T;
    case DataType::BFloat16:
    case DataType::Float16: return MPI_DATATYPE_NULL;
  }
  return MPI_DATATYPE_NULL;
}

}  // namespace

MpiCollectives::MpiCollectives(MPI_Comm communicator, SilenceWatchdog* watchdog) : communicator_(communicator), watchdog_(watchdog) {
  MPI_Comm_rank(communicator_, &rank_);
  MPI_Comm_size(communicator_, &ranks_);
}

bool MpiCollectives::available(CollectiveKind, Elements count, DataType type) const {
  return mpiType(type) != MPI_DATATYPE_NULL && count <= INT_MAX;
}

void MpiCollectives::run(CollectiveKind kind, void* buffer, Elements count, DataType type) {
  // Each rank's block, which MPI's reduce-scatter and all-gather take as arguments; built only for them, so
  // that the allreduce baseline pays for nothing MPI_Allreduce does not (two allocations are a few percent of
  // a 4 KiB allreduce of 2 ranks).
  std::vector<int> counts, displacements;
  if (kind != CollectiveKind::Allreduce)
    for (Rank r = 0; r < ranks_; ++r) {
      const Range block = blockOf({0, count}, ranks_, r);
      counts.push_back(static_cast<int>(block.count));
      displacements.push_back(static_cast<int>(block.offset));
    }
  std::optional<SilenceWatchdog::Wait> wait;
  if (watchdog_) wait.emplace(*watchdog_, "the MPI baseline's collective", SilenceWatchdog::Patience::WhileEveryRankWaitsToo);
  freezeIfAsked("in-baseline", rank_);
  switch (kind) {
    case CollectiveKind::Allreduce:
      MPI_Allreduce(MPI_IN_PLACE, buffer, static_cast<int>(count), mpiType(type), MPI_SUM, communicator_);
      return;
    case CollectiveKind::ReduceScatter: {
      // In place, MPI leaves rank r's block at the start of its buffer: move it to where the schedules
      // leave it, so that it is checked the same way.
      MPI_Reduce_scatter(MPI_IN_PLACE, buffer, counts.data(), mpiType(type), MPI_SUM, communicator_);
      const std::size_t elementBytes = sizeOf(type);
      std::memmove(static_cast<char*>(buffer) + static_cast<std::size_t>(displacements[static_cast<std::size_t>(rank_)]) * elementBytes,
                   buffer, static_cast<std::size_t>(counts[static_cast<std::size_t>(rank_)]) * elementBytes);
      return;
    }
    case CollectiveKind::AllGather:
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer, counts.data(), displacements.data(), mpiType(type),
                     communicator_);
      return;
  }
}

}  // namespace ddl
