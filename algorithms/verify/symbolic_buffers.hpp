#pragma once
// Every rank's buffer in symbols: one ContributionId per segment, changed by the run's transfers and
// reductions. Segments lie between the element boundaries that any step uses (and, for reduce-scatter
// and all-gather, the block boundaries); since a send and its receive name the same range, no step ever
// splits a segment, and one global partition serves every rank.

#include <optional>
#include <unordered_map>
#include <vector>

#include "algorithms/execution/schedule_run.hpp"
#include "algorithms/schedule/collective.hpp"
#include "algorithms/verify/contribution_sets.hpp"
#include "algorithms/verify/verifier.hpp"

namespace ddl {

class SegmentPartition {
 public:
  SegmentPartition(const std::vector<Program>& programs, const CollectiveSpec& spec);

  std::size_t size() const { return bounds_.empty() ? 0 : bounds_.size() - 1; }
  Range segment(std::size_t index) const { return {bounds_[index], bounds_[index + 1] - bounds_[index]}; }
  // The segments [first, last) that make up `range`, whose ends are boundaries.
  std::pair<std::size_t, std::size_t> segmentsOf(Range range) const;

 private:
  std::vector<Elements> bounds_;  // sorted, 0 and the buffer size included
};

class SymbolicBuffers final : public RunObserver {
 public:
  SymbolicBuffers(const std::vector<Program>& programs, const CollectiveSpec& spec, const SegmentPartition& partition);

  double transferSeconds(const Step&, Rank, Rank) override { return 0; }
  double reduceSeconds(const Step&) override { return 0; }
  bool transferEnded(Rank from, StepIndex send, Rank to, StepIndex receive) override;
  bool reductionEnded(Rank rank, StepIndex receiveReduce) override;

  // The first data error of the run: a contribution counted twice, or data sent before it exists.
  const std::optional<VerificationReport>& problem() const { return problem_; }
  // The first rank and range that does not hold what the collective promises.
  std::optional<VerificationReport> checkResult();

 private:
  std::span<ContributionId> segmentsOf(Rank rank, Range range);
  static std::uint64_t key(Rank rank, StepIndex step) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(rank)) << 32) | static_cast<std::uint32_t>(step);
  }

  const std::vector<Program>& programs_;
  CollectiveSpec spec_;
  const SegmentPartition& partition_;
  ContributionSets sets_;
  std::vector<ContributionId> values_;  // rank-major: values_[rank * partition.size() + segment]
  std::unordered_map<std::uint64_t, std::vector<ContributionId>> staged_;  // receive-reduce data awaiting reduction
  std::optional<VerificationReport> problem_;
};

}  // namespace ddl
