#pragma once
// ddlrun bench's table, column for column the one nccl-tests prints, so that the tools written for
// nccl-tests' output read it: the "# nThread ..." and "# Rank ... on HOST device ..." lines; then for each
// size: size, count, type, redop, root and the out-of-place and in-place halves (time in µs, algbw and busbw in
// GB/s, #wrong); the "# Out of bounds values" and "# Avg bus bandwidth" footer. With --baseline, the
// library's own in-place collective follows as four more columns, after nccl-tests' thirteen.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/bench/bench_harness.hpp"

namespace ddl {

struct BenchMeasurement {
  double seconds = 0;      // per run, the slowest rank's average
  std::int64_t wrong = 0;  // over all ranks and checked runs
  bool available = true;   // false where the library lacks this collective, size or type
};

struct BenchRow {
  std::int64_t bytes = 0;
  Elements count = 0;
  BenchMeasurement outOfPlace;
  BenchMeasurement inPlace;
  BenchMeasurement baseline;  // the library's own, in place, where asked for
  std::string chosen;         // --algorithm auto: what the tuning table chose at this size
};

// `rankLines` holds each rank's "HOST PID DEVICE" as gathered from the ranks.
std::string benchTableHeader(const BenchOptions& options, int ranks, const std::string& algorithm,
                             const std::vector<std::string>& rankLines, const std::string& baselineLibrary);
std::string benchTableRow(const BenchOptions& options, const BenchRow& row, int ranks, const std::string& baselineLibrary);
// Avg bus bandwidth is the mean busbw of every half of every row, as nccl-tests averages it.
std::string benchTableFooter(const BenchOptions& options, const std::vector<BenchRow>& rows, int ranks);

// nccl-tests' time column: 7 characters, fewer decimals as the time grows.
std::string formatMicroseconds(double seconds);

}  // namespace ddl
