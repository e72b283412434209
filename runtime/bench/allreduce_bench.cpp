// Allreduce in `ddlrun bench`: every rank starts with its own values and ends with the sum over all ranks.


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

}  // namespace

extern const BenchCollective kAllreduceBench{CollectiveKind::Allreduce, fill, countWrong};

}  // namespace ddl
