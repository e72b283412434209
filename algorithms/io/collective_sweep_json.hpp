#pragma once
// One collective algorithm timed over a range of sizes, in the schema both `ddlrun bench --json`
// (measured) and `ddlsim collective --json` (predicted) write, so ddlcompare can join them row by row:
//
// {"source": "ddlrun bench", "run": {"tool": "ddlrun", "version": ..., "commit": ..., "transport": "mpi"},
//  "configuration": "4 nodes x 1", "collective": "allreduce", "algorithm": "ddl", "parameters": {"dims": [2, 2]},
//  "label": "ddl 2x2", "ranks": 4, "hosts": 4, "ranks_per_host": 1, "type": "float32", "time_over_ranks": "mean",
//  "rows": [{"bytes": 1048576, "count": 262144, "time_s": ..., "algbw_Bps": ..., "busbw_Bps": ...,
//            "wrong": 0, "out_of_place": {"time_s": ..., "algbw_Bps": ..., "busbw_Bps": ..., "wrong": 0},
//            "baseline": {"library": "NCCL", "time_s": ..., ...}}]}
//
// The row's own figures are in place, as the schedules run and ddlsim predicts them. "wrong",
// "out_of_place" (nccl-tests' other half) and "baseline" (a library's own collective on the same buffers)
// appear only where measured; "chosen" only where a tuning table chose the configuration per size
// (algorithm "auto").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/training/scaling_point.hpp"

namespace ddl {

struct CollectiveTime {
  double seconds = 0;
  std::optional<std::int64_t> wrong;  // elements found wrong, where checked
};

struct CollectiveSweepRow {
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  CollectiveTime result;                     // in place, as the schedules run
  std::optional<CollectiveTime> outOfPlace;  // from another buffer, where measured (ddlrun bench)
  std::optional<CollectiveTime> baseline;    // a library's own collective, where run
  std::string baselineLibrary;             // "MPI", "NCCL"
  std::string chosen;  // --algorithm auto: the configuration the tuning table chose at this size ("ddl 4x16x4")
};

struct CollectiveSweep {
  std::string source;
  RunDescription run;
  std::string configuration;
  std::string collective;
  std::string algorithmName;   // "ddl"
  AlgorithmOptions parameters;  // {dims: 2x2}
  std::string label;           // "ddl 2x2"
  int ranks = 0;
  int hosts = 0;         // nodes (ddlsim) or machines (ddlrun)
  int ranksPerHost = 0;  // the most ranks on one of them
  std::string type;
  // Which figure over the ranks each time is (nccl-tests' -a: "rank0", "mean", "min", "max"); empty in files
  // written before it was recorded, which took the slowest rank's.
  std::string timeOverRanks;
  // The NCCL protocol ddlsim ran every size under (--protocol: "simple", "ll", "ll128"); empty where none
  // was named (measurements, and simulations of the topology as calibrated).
  std::string protocol;
  double busFactor = 0;  // nccl-tests' bus bandwidth factor for this collective and rank count
  std::vector<CollectiveSweepRow> rows;
};

nlohmann::json collectiveSweepToJson(const CollectiveSweep& sweep);
// What a sweep says it ran and measured: every field the writer writes, checked (InvalidArgument naming
// `source` and the JSON path); the rows' derived bandwidths are not kept, and busFactor is left 0.
CollectiveSweep collectiveSweepFromJson(const nlohmann::json& json, const std::string& source);
// The bytes of one element of a sweep's `type` ("float32", "bfloat16", "2-byte"); 0 if it names none.
int sweepElementBytes(const std::string& type);
// The `type` ddlsim writes for elements it knows only the size of: "float32" for 4 bytes, else "N-byte".
std::string elementTypeName(int elementBytes);

}  // namespace ddl
