#pragma once
// One algorithm with its options: what runs one collective. A tuning table chooses one per size, and an
// iteration one per gradient bucket.

#include <string>
#include <vector>

#include "algorithms/collectives/algorithm.hpp"

namespace ddl {

struct AlgorithmChoice {
  const AlgorithmDefinition* algorithm = nullptr;
  AlgorithmOptions options;
  // "ddl 4x16x4"
  std::string label() const { return algorithm->description(options); }
};

// The allreduce of each gradient bucket of an iteration, in bucket order: one algorithm for all, or a tuning
// table's choice at each bucket's size (a scenario's "auto").
using BucketAlgorithms = std::vector<AlgorithmChoice>;

}  // namespace ddl
