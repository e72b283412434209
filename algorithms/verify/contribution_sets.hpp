#pragma once
// The symbolic value of a run of buffer elements: which ranks' contributions it holds. Interned, so equal
// sets share one id and a segment's value is one integer; a set is a sorted list of runs of consecutive
// ranks, which stays short for every algorithm here because each combines ranges of neighbouring ranks.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/schedule/range.hpp"

namespace ddl {

using ContributionId = std::uint32_t;

class ContributionSets {
 public:
  // Holds no contribution: data never written (all-gather inputs of other ranks).
  static constexpr ContributionId kNothing = 0;

  ContributionSets();

  ContributionId single(Rank rank);
  ContributionId allOf(int ranks);
  // The union of two sets, or nullopt if they share a rank: the sum would count that rank twice.
  std::optional<ContributionId> unite(ContributionId a, ContributionId b);
  // The ranks both hold, for reporting a double count.
  std::string sharedRanks(ContributionId a, ContributionId b) const;

  // "ranks 0-3, 7" or "no rank"
  std::string describe(ContributionId id) const;
  std::size_t size() const { return sets_.size(); }

 private:
  struct RankRun {
    Rank first;
    Rank last;  // inclusive
    friend bool operator==(const RankRun&, const RankRun&) = default;
  };
  struct SetLocation {
    std::uint32_t begin;  // into runs_
    std::uint32_t size;
  };

  std::span<const RankRun> runsOf(ContributionId id) const {
    return std::span<const RankRun>(runs_).subspan(sets_[id].begin, sets_[id].size);
  }
  // The id of the set in scratch_, adding it if new.
  ContributionId internScratch();
  static std::uint64_t hashOf(std::span<const RankRun> runs);
  void growIndex();
  static std::string describeRuns(std::span<const RankRun> runs);

  std::vector<RankRun> runs_;       // every set's runs, back to back
  std::vector<SetLocation> sets_;   // by id
  std::vector<ContributionId> index_;  // open-addressing hash table of ids; kEmptySlot where free
  std::vector<RankRun> scratch_;
};

}  // namespace ddl
