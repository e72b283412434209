// Reduce-scatter in `ddlrun bench`: every rank starts with its own values over the whole buffer and ends
// with block r (blockOf, the balanced partition) summed over all ranks; the rest of its buffer is scratch.

#include <climits>
#include <cstring>
#include <vector>

#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

void fill(void* buffer, Elements count, Rank rank, int, DataType type) {
  for (Elements i = 0; i < count; ++i) writeValue(buffer, i, patternValue(i, rank, type), type);
}

std::int64_t countWrong(const void* buffer, Elements count, Rank rank, int ranks, DataType type) {
  const Range mine = blockOf({0, count}, ranks, rank);
  std::int64_t wrong = 0;
  for (Elements i = mine.offset; i < mine.end(); ++i) wrong += readValue(buffer, i, type) != patternSum(i, ranks, type);
  return wrong;
}

// MPI_Reduce_scatter with the balanced block sizes, in place: rank r's block lands at the start of its
// buffer, so it is moved to where the schedules leave it, and checked the same way.
bool mpiBaseline(void* buffer, Elements count, DataType type, MPI_Comm communicator) {
  int ranks = 0, rank = 0;
  MPI_Comm_size(communicator, &ranks);
  MPI_Comm_rank(communicator, &rank);
  if (mpiType(type) == MPI_DATATYPE_NULL || count > INT_MAX) return false;
  std::vector<int> counts;
  for (Rank r = 0; r < ranks; ++r) counts.push_back(static_cast<int>(blockOf({0, count}, ranks, r).count));
  MPI_Reduce_scatter(MPI_IN_PLACE, buffer, counts.data(), mpiType(type), MPI_SUM, communicator);
  const Range mine = blockOf({0, count}, ranks, rank);
  std::memmove(static_cast<char*>(buffer) + mine.offset * static_cast<Elements>(sizeOf(type)), buffer,
               static_cast<std::size_t>(mine.count) * sizeOf(type));
  return true;
}

}  // namespace

extern const BenchCollective kReduceScatterBench{CollectiveKind::ReduceScatter, fill, countWrong, mpiBaseline};

}  // namespace ddl
