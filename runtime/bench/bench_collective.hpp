#pragma once
// What a collective contributes to `ddlrun bench`, as each nccl-tests collective file does to its shared
// harness: how each rank's buffer starts and what it must hold afterwards. One definition per file in this
// folder; the libraries' own collectives for --baseline are in mpi/ and nccl/.

#include <cstdint>
#include <vector>

#include "algorithms/schedule/collective.hpp"
#include "runtime/data_type.hpp"

namespace ddl {

struct BenchCollective {
  CollectiveKind kind;
  // Fills rank `rank`'s buffer of `count` elements with rank- and position-dependent values.
  void (*fill)(void* buffer, Elements count, Rank rank, int ranks, DataType type);
  // How many of the elements the collective defines on `rank` differ from the exact expected result.
  std::int64_t (*countWrong)(const void* buffer, Elements count, Rank rank, int ranks, DataType type);
};

const BenchCollective& benchCollective(CollectiveKind kind);

// The values every collective's check builds on: small integers, so that sums over up to thousands of
// ranks are exact in float32, over up to 256 in float16 (integers are exact up to 2048; values lie in -8..8),
// and over up to 256 in bfloat16, whose values are -1, 0 or 1 (integers are exact up to 256).
double patternValue(Elements index, Rank rank, DataType type);
double patternSum(Elements index, int ranks, DataType type);

// Both repeat along the buffer every patternPeriod(type) elements (17; 3 in bfloat16), so a buffer is filled
// and checked from one period's values: element i takes phases[i % period]. Element by element, with a
// modulo each, filling 512 MiB took over a second a rank, which skewed the ranks of a job sharing cores
// by more than --timeout-s before their first wait.
int patternPeriod(DataType type);
std::vector<double> patternPhases(Rank rank, DataType type);  // patternValue over one period
std::vector<double> sumPhases(int ranks, DataType type);      // patternSum over one period
void writePeriodic(void* buffer, Range range, const std::vector<double>& phases, DataType type);
// How many elements of `range` do not equal their phase's value (NaN never does).
std::int64_t countUnlike(const void* buffer, Range range, const std::vector<double>& phases, DataType type);

// Out of place, what the output starts as: NaN, which no element of a result equals, so that an element the
// run leaves unwritten counts as wrong.
void writeUnset(void* buffer, Elements count, DataType type);
// How many of `count` elements differ, bit for bit, between `before` and `after`: the input an out-of-place
// run must leave as it was.
std::int64_t countChanged(const void* before, const void* after, Elements count, DataType type);

void writeValue(void* buffer, Elements index, double value, DataType type);
double readValue(const void* buffer, Elements index, DataType type);

}  // namespace ddl
