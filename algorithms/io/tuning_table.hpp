#pragma once
// A tuning table: every candidate configuration of a collective simulated at each size on one topology and
// GPU count (`ddlsim tune`), and the best per size, which `--algorithm auto --tuning FILE` (ddlsim
// collective, ddlrun bench) runs at each size:
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

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/collectives/tuning_candidates.hpp"
#include "algorithms/training/scaling_point.hpp"

namespace ddl {

struct TunedCandidate {
  AlgorithmChoice choice;
  std::vector<double> seconds;  // per size of the table
};

struct TuningTable {
  std::string source = "ddlsim tune";
  RunDescription run;
  std::string topology;
  int gpus = 0;
  CollectiveKind collective = CollectiveKind::Allreduce;
  int elementBytes = 4;
  std::vector<std::int64_t> sizes;  // ascending
  std::vector<TunedCandidate> candidates;

  // Per size: the fastest candidate and the next (the first listed wins a tie); runnerUp is `best` where
  // there is only one candidate.
  std::size_t best(std::size_t size) const;
  std::size_t runnerUp(std::size_t size) const;
  // How much slower the runner-up is: its time / the best's - 1 (0.12: 12%), 0 where the best takes no
  // time, and at most 1e9, so that a table of any times can be written and read back.
  double margin(std::size_t size) const;
  // What runs a collective of `bytes`: the best at the table's size nearest to `bytes` on a log scale (a
  // tie goes to the smaller size), and the ends beyond the table's range.
  const AlgorithmChoice& choose(double bytes) const;
};

// Why `table` cannot choose for a `kind` collective of `ranks` ranks on `topology` (empty: on any), as a
// phrase after the file's name ("was tuned for 256 ranks, not 128"); empty if it can.
std::string tuningMismatch(const TuningTable& table, CollectiveKind kind, int ranks, const std::string& topology);

nlohmann::json tuningTableToJson(const TuningTable& table);
// Every field checked, InvalidArgument naming `source` and the JSON path: known algorithms with options that
// fit `gpus`, candidate labels unique, one time per size, sizes ascending, rows that agree with the times.
TuningTable tuningTableFromJson(const nlohmann::json& json, const std::string& source);
// tuningTableFromJson of the file at `path`.
TuningTable loadTuningTable(const std::string& path);

}  // namespace ddl
