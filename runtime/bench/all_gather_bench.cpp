// All-gather in `ddlrun bench`: rank r starts with block r of the buffer filled with its values (the rest
// holds NaN) and every rank ends with every rank's block.

#include <climits>
#include <cmath>
#include <vector>

#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

void fill(void* buffer, Elements count, Rank rank, int ranks, DataType type) {
  const Range mine = blockOf({0, count}, ranks, rank);
  for (Elements i = 0; i < count; ++i)
    writeValue(buffer, i, i >= mine.offset && i < mine.end() ? patternValue(i, rank, type) : std::nan(""), type);
}

std::int64_t countWrong(const void* buffer, Elements count, Rank, int ranks, DataType type) {
  std::int64_t wrong = 0;
  for (Rank origin = 0; origin < ranks; ++origin) {
    const Range block = blockOf({0, count}, ranks, origin);
    for (Elements i = block.offset; i < block.end(); ++i) wrong += readValue(buffer, i, type) != patternValue(i, origin, type);
  }
  return wrong;
}

bool mpiBaseline(void* buffer, Elements count, DataType type, MPI_Comm communicator) {
  int ranks = 0;
  MPI_Comm_size(communicator, &ranks);
  if (mpiType(type) == MPI_DATATYPE_NULL || count > INT_MAX) return false;
  std::vector<int> counts, displacements;
  for (Rank r = 0; r < ranks; ++r) {
    const Range block = blockOf({0, count}, ranks, r);
    counts.push_back(static_cast<int>(block.count));
    displacements.push_back(static_cast<int>(block.offset));
  }
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buffer, counts.data(), displacements.data(), mpiType(type), communicator);
  return true;
}

}  // namespace

extern const BenchCollective kAllGatherBench{CollectiveKind::AllGather, fill, countWrong, mpiBaseline};

}  // namespace ddl
