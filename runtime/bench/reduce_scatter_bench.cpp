// Reduce-scatter in `ddlrun bench`: every rank starts with its own values over the whole buffer and ends
// with block r (blockOf, the balanced partition) summed over all ranks; the rest of its buffer is scratch.

#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

void fill(void* buffer, Elements count, Rank rank, int, DataType type) {
  writePeriodic(buffer, {0, count}, patternPhases(rank, type), type);
}

std::int64_t countWrong(const void* buffer, Elements count, Rank rank, int ranks, DataType type) {
  return countUnlike(buffer, blockOf({0, count}, ranks, rank), sumPhases(ranks, type), type);
}

}  // namespace

extern const BenchCollective kReduceScatterBench{CollectiveKind::ReduceScatter, fill, countWrong};

}  // namespace ddl
