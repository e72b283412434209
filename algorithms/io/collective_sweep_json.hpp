#pragma once
// One collective algorithm timed over a range of sizes, in the schema both `ddlrun bench --json`
// (measured) and `ddlsim collective --json` (predicted) write, so ddlcompare can join them row by row:
//
// {"source": "ddlrun bench", "configuration": "4 nodes x 1", "collective": "allreduce",
//  "algorithm": "ring", "ranks": 4, "type": "float32",
//  "rows": [{"bytes": 1048576, "count": 262144, "time_s": ..., "algbw_Bps": ..., "busbw_Bps": ...,
//            "wrong": 0, "out_of_place": {"time_s": ..., "algbw_Bps": ..., "busbw_Bps": ..., "wrong": 0},
//            "baseline": {"library": "NCCL", "time_s": ..., ...}}]}
//
// The row's own figures are in place, as the schedules run and ddlsim predicts them. "wrong",
// "out_of_place" (nccl-tests' other half) and "baseline" (a library's own collective on the same buffers)
// appear only where measured.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

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
};

struct CollectiveSweep {
  std::string source;
  std::string configuration;
  std::string collective;
  std::string algorithm;
  int ranks = 0;
  std::string type;
  double busFactor = 0;  // nccl-tests' bus bandwidth factor for this collective and rank count
  std::vector<CollectiveSweepRow> rows;
};

nlohmann::json collectiveSweepToJson(const CollectiveSweep& sweep);

}  // namespace ddl
