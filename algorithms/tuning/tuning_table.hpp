#pragma once
// A tuning table: every candidate configuration of a collective simulated at each size on one topology and
// GPU count (`ddlsim tune`), and the best per size, which `--algorithm auto --tuning FILE` (ddlsim
// collective, ddlrun bench, a scenario's "auto") runs at each size. Its file format is
// algorithms/io/tuning_table.hpp's.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/collectives/algorithm_choice.hpp"
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

// Why `table` cannot choose for a `kind` collective of `ranks` ranks on `topology` (empty: on any) of
// `elementBytes`-byte elements (0: of any), as a phrase after the file's name ("was tuned for 256 ranks, not
// 128"); empty if it can. Element size counts: the best algorithm at a size depends on how many elements
// the size holds (reductions per element, blocks that divide), and a scenario's fp16 gradients were already
// refused a table of float32.
std::string tuningMismatch(const TuningTable& table, CollectiveKind kind, int ranks, const std::string& topology,
                           int elementBytes = 0);

// Where `table` chooses, at one of its sizes, an algorithm that reduces in a switch (NVLS: only a simulator
// places the switch), the phrase after the file's name ("chooses nccl-nvls 16 channels, 131072 B shards at
// 1048576 bytes"); empty where it chooses none. The runtimes refuse such a table.
std::string switchChoiceOf(const TuningTable& table);

}  // namespace ddl
