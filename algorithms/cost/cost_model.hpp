#pragma once
// The α-β-γ model: a message of n bytes costs α + n·β on the link it crosses, a reduction of n bytes
// costs n·γ. Links come in levels (GPUs of a node, nodes of a rack, racks), described as a mixed radix over
// the ranks: level 0 groups level_sizes[0] consecutive ranks, level 1 groups level_sizes[1] such groups, and
// so on. A message crosses the outermost level in which its two ranks' digits differ.

#include <vector>

#include "algorithms/schedule/range.hpp"

namespace ddl {

struct LinkCost {
  double latency_s = 0;         // α: seconds per message
  double seconds_per_byte = 0;  // β: 1 / bandwidth

  // A message of no bytes is never sent: executors skip steps of zero elements.
  double messageSeconds(double bytes) const { return bytes > 0 ? latency_s + bytes * seconds_per_byte : 0; }
};

class CostModel {
 public:
  // Throws InvalidArgument if the sizes and links differ in number or a size is < 1.
  CostModel(std::vector<int> levelSizes, std::vector<LinkCost> links, double reduceSecondsPerByte);
  static CostModel uniform(int ranks, LinkCost link, double reduceSecondsPerByte) {
    return CostModel({ranks}, {link}, reduceSecondsPerByte);
  }

  int levelCount() const { return static_cast<int>(levelSizes_.size()); }
  int levelSize(int level) const { return levelSizes_[static_cast<std::size_t>(level)]; }
  const LinkCost& link(int level) const { return links_[static_cast<std::size_t>(level)]; }
  int ranks() const;
  double reduceSecondsPerByte() const { return reduceSecondsPerByte_; }

  int levelBetween(Rank a, Rank b) const;
  double messageSeconds(Rank from, Rank to, double bytes) const {
    return link(levelBetween(from, to)).messageSeconds(bytes);
  }
  double reduceSeconds(double bytes) const { return bytes * reduceSecondsPerByte_; }

  // The one-level model of `ranks` ranks on this model's link of `level`: what an algorithm nested on that
  // level (the inner allreduce of a hierarchical one) sees.
  CostModel levelModel(int level, int ranks) const { return uniform(ranks, link(level), reduceSecondsPerByte_); }

 private:
  std::vector<int> levelSizes_;
  std::vector<LinkCost> links_;
  double reduceSecondsPerByte_;
};

}  // namespace ddl
