#include "algorithms/tuning/tuning_table.hpp"

#include <algorithm>
#include <cmath>

namespace ddl {

std::size_t TuningTable::best(std::size_t size) const {
  std::size_t best = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i)
    if (candidates[i].seconds[size] < candidates[best].seconds[size]) best = i;
  return best;
}

std::size_t TuningTable::runnerUp(std::size_t size) const {
  const std::size_t first = best(size);
  std::size_t second = first;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (i != first && (second == first || candidates[i].seconds[size] < candidates[second].seconds[size])) second = i;
  return second;
}

double TuningTable::margin(std::size_t size) const {
  const double best = candidates[this->best(size)].seconds[size];
  const double second = candidates[runnerUp(size)].seconds[size];
  return best > 0 ? std::min(second / best - 1, 1e9) : 0;
}

const AlgorithmChoice& TuningTable::choose(double bytes) const {
  std::size_t nearest = 0;
  for (std::size_t i = 1; i < sizes.size(); ++i) {
    // Beyond the geometric mean of two neighbouring sizes, the larger is nearer on a log scale.
    const double boundary = std::sqrt(static_cast<double>(sizes[i - 1]) * static_cast<double>(sizes[i]));
    if (bytes > boundary) nearest = i;
  }
  return candidates[best(nearest)].choice;
}

std::string switchChoiceOf(const TuningTable& table) {
  for (std::size_t s = 0; s < table.sizes.size(); ++s) {
    const AlgorithmChoice& best = table.candidates[table.best(s)].choice;
    if (best.algorithm->reducesInSwitch()) return "chooses " + best.label() + " at " + std::to_string(table.sizes[s]) + " bytes";
  }
  return "";
}

std::string tuningMismatch(const TuningTable& table, CollectiveKind kind, int ranks, const std::string& topology,
                           int elementBytes) {
  if (table.collective != kind)
    return "is a table of " + std::string(toString(table.collective)) + " algorithms, not " + std::string(toString(kind));
  if (table.gpus != ranks) return "was tuned for " + std::to_string(table.gpus) + " ranks, not " + std::to_string(ranks);
  if (!topology.empty() && table.topology != topology) return "was tuned on " + table.topology + ", not " + topology;
  if (elementBytes > 0 && table.elementBytes != elementBytes)
    return "was tuned for " + std::to_string(table.elementBytes) + "-byte elements, not " + std::to_string(elementBytes);
  return "";
}

}  // namespace ddl
