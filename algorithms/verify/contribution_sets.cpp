#include "algorithms/verify/contribution_sets.hpp"

#include <algorithm>

namespace ddl {
namespace {

constexpr ContributionId kEmptySlot = ~ContributionId{0};

}  // namespace

ContributionSets::ContributionSets() : index_(1024, kEmptySlot) {
  scratch_.clear();
  internScratch();  // kNothing: the empty set
}

std::uint64_t ContributionSets::hashOf(std::span<const RankRun> runs) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ull ^ runs.size();
  for (const RankRun& run : runs) {
    hash = (hash ^ static_cast<std::uint32_t>(run.first)) * 0x100000001b3ull;
    hash = (hash ^ static_cast<std::uint32_t>(run.last)) * 0x100000001b3ull;
  }
  return hash ^ (hash >> 29);
}

void ContributionSets::growIndex() {
  std::vector<ContributionId> grown(index_.size() * 2, kEmptySlot);
  const std::size_t mask = grown.size() - 1;
  for (ContributionId id = 0; id < sets_.size(); ++id) {
    std::size_t slot = hashOf(runsOf(id)) & mask;
    while (grown[slot] != kEmptySlot) slot = (slot + 1) & mask;
    grown[slot] = id;
  }
  index_ = std::move(grown);
}

ContributionId ContributionSets::internScratch() {
  const std::size_t mask = index_.size() - 1;
  std::size_t slot = hashOf(scratch_) & mask;
  for (; index_[slot] != kEmptySlot; slot = (slot + 1) & mask) {
    const auto existing = runsOf(index_[slot]);
    if (std::equal(existing.begin(), existing.end(), scratch_.begin(), scratch_.end())) return index_[slot];
  }
  const auto id = static_cast<ContributionId>(sets_.size());
  sets_.push_back({static_cast<std::uint32_t>(runs_.size()), static_cast<std::uint32_t>(scratch_.size())});
  runs_.insert(runs_.end(), scratch_.begin(), scratch_.end());
  index_[slot] = id;
  if (sets_.size() * 2 > index_.size()) growIndex();
  return id;
}

ContributionId ContributionSets::single(Rank rank) {
  scratch_.assign({{rank, rank}});
  return internScratch();
}

ContributionId ContributionSets::allOf(int ranks) {
  scratch_.clear();
  if (ranks > 0) scratch_.push_back({0, ranks - 1});
  return internScratch();
}

std::optional<ContributionId> ContributionSets::unite(ContributionId a, ContributionId b) {
  if (a == kNothing) return b;
  if (b == kNothing) return a;
  const auto x = runsOf(a);
  const auto y = runsOf(b);
  scratch_.clear();
  std::size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    const bool takeX = j == y.size() || (i < x.size() && x[i].first < y[j].first);
    const RankRun next = takeX ? x[i++] : y[j++];
    if (!scratch_.empty() && next.first <= scratch_.back().last) return std::nullopt;
    if (!scratch_.empty() && next.first == scratch_.back().last + 1) {
      scratch_.back().last = next.last;
    } else {
      scratch_.push_back(next);
    }
  }
  return internScratch();
}

std::string ContributionSets::sharedRanks(ContributionId a, ContributionId b) const {
  std::vector<RankRun> shared;
  for (const RankRun& x : runsOf(a))
    for (const RankRun& y : runsOf(b)) {
      const Rank first = std::max(x.first, y.first);
      const Rank last = std::min(x.last, y.last);
      if (first <= last) shared.push_back({first, last});
    }
  std::sort(shared.begin(), shared.end(), [](const RankRun& p, const RankRun& q) { return p.first < q.first; });
  return describeRuns(shared);
}

std::string ContributionSets::describe(ContributionId id) const { return describeRuns(runsOf(id)); }

std::string ContributionSets::describeRuns(std::span<const RankRun> runs) {
  if (runs.empty()) return "no rank";
  std::string text = runs.size() == 1 && runs[0].first == runs[0].last ? "rank " : "ranks ";
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < runs.size() && i < kShown; ++i) {
    text += (i ? ", " : "") + std::to_string(runs[i].first);
    if (runs[i].last != runs[i].first) text += "-" + std::to_string(runs[i].last);
  }
  if (runs.size() > kShown) text += ", ... (" + std::to_string(runs.size()) + " runs)";
  return text;
}

}  // namespace ddl
