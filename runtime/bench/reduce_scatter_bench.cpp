// Reduce-scatter in `ddlrun bench`: every rank starts with its own values over the whole buffer and ends
// with block r (blockOf, the balanced partition) summed over all ranks; the rest of its buffer is scratch.

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

}  // namespace

extern const BenchCollective kReduceScatterBench{CollectiveKind::ReduceScatter, fill, countWrong};

}  // namespace ddl
