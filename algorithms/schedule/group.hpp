#pragma once
// A group of ranks that runs one phase of a collective together.

#include "algorithms/schedule/range.hpp"

namespace ddl {

// The ranks base, base + stride, ..., base + (size - 1) * stride. Every group in the algorithms here is
// such an arithmetic progression: a ring along one dimension of a DDL grid, the ranks of one node, the
// node leaders of a hierarchical allreduce, a row or column of a torus.
struct Group {
  Rank base = 0;
  Rank stride = 1;
  int size = 1;

  static Group all(int ranks) { return {0, 1, ranks}; }

  Rank rank(int index) const { return base + index * stride; }
  bool contains(Rank rank) const {
    const Rank delta = rank - base;
    return delta >= 0 && delta % stride == 0 && delta / stride < size;
  }
  int indexOf(Rank rank) const { return (rank - base) / stride; }
  friend bool operator==(const Group&, const Group&) = default;
};

}  // namespace ddl
