// All-gather in `ddlrun bench`: rank r starts with block r of the buffer filled with its values (the rest
// holds NaN) and every rank ends with every rank's block.

#include <cmath>

#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

void fill(void* buffer, Elements count, Rank rank, int ranks, DataType type) {
  const Range mine = blockOf({0, count}, ranks, rank);
  const std::vector<double> nan{std::nan("")};
  writePeriodic(buffer, {0, mine.offset}, nan, type);
  writePeriodic(buffer, mine, patternPhases(rank, type), type);
  writePeriodic(buffer, {mine.end(), count - mine.end()}, nan, type);
}

std::int64_t countWrong(const void* buffer, Elements count, Rank, int ranks, DataType type) {
  std::int64_t wrong = 0;
  for (Rank origin = 0; origin < ranks; ++origin)
    wrong += countUnlike(buffer, blockOf({0, count}, ranks, origin), patternPhases(origin, type), type);
  return wrong;
}

}  // namespace

extern const BenchCollective kAllGatherBench{CollectiveKind::AllGather, fill, countWrong};

}  // namespace ddl
