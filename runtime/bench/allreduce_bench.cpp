// Allreduce in `ddlrun bench`: every rank starts with its own values and ends with the sum over all ranks.


#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

void fill(void* buffer, Elements count, Rank rank, int, DataType type) {
  writePeriodic(buffer, {0, count}, patternPhases(rank, type), type);
}

std::int64_t countWrong(const void* buffer, Elements count, Rank, int ranks, DataType type) {
  return countUnlike(buffer, {0, count}, sumPhases(ranks, type), type);
}

}  // namespace

extern const BenchCollective kAllreduceBench{CollectiveKind::Allreduce, fill, countWrong};

}  // namespace ddl
