#include "algorithms/cost/cost_model.hpp"

#include "common/invalid_argument.hpp"

namespace ddl {

CostModel::CostModel(std::vector<int> levelSizes, std::vector<LinkCost> links, double reduceSecondsPerByte)
    : levelSizes_(std::move(levelSizes)), links_(std::move(links)), reduceSecondsPerByte_(reduceSecondsPerByte) {
  if (levelSizes_.empty() || levelSizes_.size() != links_.size())
    throw InvalidArgument("levels", "need one link cost per level, got " + std::to_string(links_.size()) +
                                        " for " + std::to_string(levelSizes_.size()) + " levels");
  for (int size : levelSizes_)
    if (size < 1) throw InvalidArgument("levels", "a level must group at least one rank");
  for (const LinkCost& link : links_)
    if (link.latency_s < 0 || link.seconds_per_byte < 0)
      throw InvalidArgument("levels", "latency and seconds per byte must be non-negative");
  if (reduceSecondsPerByte_ < 0) throw InvalidArgument("gamma", "reduce seconds per byte must be non-negative");
}

int CostModel::ranks() const {
  int product = 1;
  for (int size : levelSizes_) product *= size;
  return product;
}

int CostModel::levelBetween(Rank a, Rank b) const {
  int outermost = 0;
  for (int level = 0; level < levelCount() && a != b; ++level) {
    if (a % levelSize(level) != b % levelSize(level)) outermost = level;
    a /= levelSize(level);
    b /= levelSize(level);
  }
  return outermost;
}

}  // namespace ddl
