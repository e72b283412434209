// All-gather in `ddlrun bench`: rank r starts with block r of the buffer filled with its values (the rest
// holds NaN) and every rank ends with every rank's block.

#include <cmath>

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

}  // namespace

extern const BenchCollective kAllGatherBench{CollectiveKind::AllGather, fill, countWrong};

}  // namespace ddl
