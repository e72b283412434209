#pragma once
// The table nccl-tests' all_reduce_perf and its kin print, to the letter (nccl-tests 2.19, src/util.cu:
// writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble and Body, writeResultFooter), written by
// both tools that time a collective over a range of sizes: `ddlrun bench` (measured) and `ddlsim
// collective` (simulated). Tools written for nccl-tests' output read either.
//
//   # Collective test starting: PROGRAM
//   # nThread 1 nGpus 1 minBytes B maxBytes E step: F(factor) warmup iters: W iters: N agg iters: 1 validation: V graph: 0 unalign: U
//   # ... (the program's own comment lines)
//   #
//   # Using devices
//   #  Rank  0 Group  0 Pid  1234 on       host device  0 [0000:04:00] NVIDIA H100 80GB HBM3
//   #
//   #                                                              out-of-place                       in-place
//   #       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
//   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
//             8             2     float     sum      -1    10.03    0.00    0.00       0     9.87    0.00    0.00       0
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 1.234
//   #
//   # Collective test concluded: PROGRAM
//
// A half with nothing measured (ddlsim runs no out-of-place collective) is nccl-tests' null body, 32 spaces;
// #wrong of an unchecked half is "N/A". With a baseline, its four columns follow nccl-tests' thirteen.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/schedule/collective.hpp"

namespace ddl {

// nccl-tests' -a: which figure over the ranks a time is.
enum class RankAverage { Rank0 = 0, Mean = 1, Min = 2, Max = 3 };
inline constexpr RankAverage kNcclTestsAverage = RankAverage::Mean;  // nccl-tests' default
std::string_view toString(RankAverage average);  // "rank0", "mean", "min", "max": in results files
std::optional<RankAverage> rankAverageNamed(std::string_view name);

struct NcclTestsRun {
  std::string program;  // "ddlrun bench": its test starting and concluded lines
  std::int64_t minBytes = 0;
  std::int64_t maxBytes = 0;
  double factor = 2;           // the sweep's -f; with stepBytes > 0, a linear sweep instead
  std::int64_t stepBytes = 0;  // -i
  int warmup = 0;
  int iterations = 1;
  bool validation = true;
  int unalign = 0;
  std::vector<std::string> comments;  // "# ..." lines of the program's own, after the parameters
  std::vector<std::string> devices;   // per rank: "Pid 1234 on host device 0 [0000:04:00] NVIDIA H100"
  std::string baselineLibrary;        // non-empty: a library's own in-place half follows
};

struct NcclTestsHalf {
  bool present = true;                // false: nccl-tests' null body
  double seconds = 0;                 // per run
  std::optional<std::int64_t> wrong;  // nullopt: not checked ("N/A")
};

struct NcclTestsRow {
  std::int64_t bytes = 0;  // nccl-tests' size: the larger of the send and receive buffers
  std::int64_t count = 0;  // its count: per rank for all-gather and reduce-scatter
  std::string type;        // nccl-tests' name: "float", "half", ...
  std::string redop;       // "sum", or "none" for all-gather
  NcclTestsHalf outOfPlace;
  NcclTestsHalf inPlace;
  std::optional<NcclTestsHalf> baseline;
  std::string comment;  // a "#  ..." line printed before the row (ddlrun's "auto chose ..."); empty: none
};

// The sizes nccl-tests runs for a sweep's `sizes` (bytes): all-gather and reduce-scatter give each rank a
// block of whole 16-byte multiples (AllGatherGetCollByteCount), so each size rounds down to ranks such
// blocks; a size that rounds to nothing, or to the size before it, is dropped. Allreduce runs them as they are.
std::vector<std::int64_t> ncclTestsSizes(CollectiveKind kind, const std::vector<std::int64_t>& sizes, int elementBytes, int ranks);

// nccl-tests' count and redop for a collective of `bytes` total over `ranks`: all-gather and reduce-scatter
// count a rank's block, all-gather reduces nothing.
std::int64_t ncclTestsCount(CollectiveKind kind, std::int64_t bytes, int elementBytes, int ranks);
std::string ncclTestsRedop(CollectiveKind kind);
// nccl-tests' name of an element type known only by its size: "float" for 4 bytes, else "N-byte".
std::string ncclTestsTypeName(int elementBytes);

std::string ncclTestsHeader(const NcclTestsRun& run);
std::string ncclTestsRow(const NcclTestsRow& row, double busFactor);
// The mean busbw of every present half of every row (as nccl-tests averages it), the wrong elements of all.
std::string ncclTestsFooter(const NcclTestsRun& run, const std::vector<NcclTestsRow>& rows, double busFactor);

// nccl-tests' getFloatStr: `value` in `width` characters, with 2, 1 or 0 decimals as it fits, else exponent.
std::string ncclTestsNumber(double value, int width);

}  // namespace ddl
