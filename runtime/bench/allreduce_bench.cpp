// Allreduce in `ddlrun bench`: every rank starts with its own values and ends with the sum over all ranks.

#include <climits>

#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

void fill(void* buffer, Elements count, Rank rank, int, DataType type) {
  for (Elements i = 0; i < count; ++i) writeValue(buffer, i, patternValue(i, rank, type), type);
}

std::int64_t countWrong(const void* buffer, Elements count, Rank, int ranks, DataType type) {
  std::int64_t wrong = 0;
  for (Elements i = 0; i < count; ++i) wrong += readValue(buffer, i, type) != patternSum(i, ranks, type);
  return wrong;
}

bool mpiBaseline(void* buffer, Elements count, DataType type, MPI_Comm communicator) {
  if (mpiType(type) == MPI_DATATYPE_NULL || count > INT_MAX) return false;
  MPI_Allreduce(MPI_IN_PLACE, buffer, static_cast<int>(count), mpiType(type), MPI_SUM, communicator);
  return true;
}

}  // namespace

extern const BenchCollective kAllreduceBench{CollectiveKind::Allreduce, fill, countWrong, mpiBaseline};

}  // namespace ddl
