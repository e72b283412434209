#pragma once
// A tuning table (algorithms/tuning/tuning_table.hpp) as JSON:
//
// {"source": "ddlsim tune", "run": {"tool": "ddlsim", ..., "engine": "step"},
//  "topology": "minsky-p100-ib-edr", "gpus": 256, "collective": "allreduce", "type": "float32",
//  "candidates": [{"algorithm": "ddl", "parameters": {"dims": [4, 16, 4]}, "label": "ddl 4x16x4",
//                  "time_s": [...one per row...]}, ...],
//  "rows": [{"bytes": 4096, "best": "ddl 4x16x4", "time_s": ..., "runner_up": "ring", "runner_up_time_s": ...,
//            "margin": 0.12}, ...]}
//
// "best" and "runner_up" name candidates by label; "margin" is runner_up_time_s / time_s - 1. The reader
// checks that the rows are what the candidates' times say, so a table edited by hand cannot choose a
// configuration its own figures call slower.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/tuning/tuning_table.hpp"

namespace ddl {

nlohmann::json tuningTableToJson(const TuningTable& table);
// Every field checked, InvalidArgument naming `source` and the JSON path: known algorithms with options that
// fit `gpus`, candidate labels unique, one time per size, sizes ascending, rows that agree with the times.
TuningTable tuningTableFromJson(const nlohmann::json& json, const std::string& source);
// tuningTableFromJson of the file at `path`.
TuningTable loadTuningTable(const std::string& path);

}  // namespace ddl
