#include "algorithms/verify/symbolic_buffers.hpp"

#include <algorithm>
#include <unordered_set>

namespace ddl {

SegmentPartition::SegmentPartition(const std::vector<Program>& programs, const CollectiveSpec& spec) {
  std::unordered_set<Elements> bounds{0, spec.elements};
  for (const Program& program : programs)
    for (const Step& step : program.steps()) {
      bounds.insert(step.range.offset);
      bounds.insert(step.range.end());
    }
  if (spec.kind != CollectiveKind::Allreduce)
    for (Rank rank = 0; rank < spec.ranks; ++rank) bounds.insert(blockOf(spec.buffer(), spec.ranks, rank).offset);
  bounds_.assign(bounds.begin(), bounds.end());
  std::sort(bounds_.begin(), bounds_.end());
}

std::pair<std::size_t, std::size_t> SegmentPartition::segmentsOf(Range range) const {
  auto first = std::lower_bound(bounds_.begin(), bounds_.end(), range.offset);
  auto last = std::lower_bound(first, bounds_.end(), range.end());
  return {static_cast<std::size_t>(first - bounds_.begin()), static_cast<std::size_t>(last - bounds_.begin())};
}

SymbolicBuffers::SymbolicBuffers(const std::vector<Program>& programs, const CollectiveSpec& spec,
                                 const SegmentPartition& partition)
    : programs_(programs), spec_(spec), partition_(partition),
      values_(static_cast<std::size_t>(spec.participants()) * partition.size(), ContributionSets::kNothing) {
  // Switches (ranks spec.ranks and on) start with nothing: all they hold comes from the ranks.
  for (Rank rank = 0; rank < spec.ranks; ++rank) {
    const Range initial = spec.kind == CollectiveKind::AllGather ? blockOf(spec.buffer(), spec.ranks, rank) : spec.buffer();
    std::ranges::fill(segmentsOf(rank, initial), sets_.single(rank));
  }
}

std::span<ContributionId> SymbolicBuffers::segmentsOf(Rank rank, Range range) {
  const auto [first, last] = partition_.segmentsOf(range);
  return std::span<ContributionId>(values_).subspan(static_cast<std::size_t>(rank) * partition_.size() + first, last - first);
}

bool SymbolicBuffers::transferEnded(Rank from, StepIndex send, Rank to, StepIndex receive) {
  const Program& sender = programs_[static_cast<std::size_t>(from)];
  const Range range = sender.step(send).range;
  const auto source = segmentsOf(from, range);
  if (std::ranges::find(source, ContributionSets::kNothing) != source.end()) {
    problem_ = VerificationReport{VerificationProblem::UndefinedData, from, send,
                                  sender.describe(send) + " sends elements that hold no data yet"};
    return false;
  }
  if (programs_[static_cast<std::size_t>(to)].step(receive).kind == StepKind::ReceiveCopy) {
    std::ranges::copy(source, segmentsOf(to, range).begin());
  } else {
    staged_[key(to, receive)].assign(source.begin(), source.end());
  }
  return true;
}

bool SymbolicBuffers::reductionEnded(Rank rank, StepIndex receive) {
  const auto staged = staged_.extract(key(rank, receive));
  const Program& program = programs_[static_cast<std::size_t>(rank)];
  const Range range = program.step(receive).range;
  auto target = segmentsOf(rank, range);
  // Neighbouring segments usually hold the same pair of sets; unite each distinct pair once.
  ContributionId lastHeld = ContributionSets::kNothing, lastAdded = ContributionSets::kNothing, lastSum = 0;
  bool cached = false;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const ContributionId added = staged.mapped()[i];
    if (!cached || target[i] != lastHeld || added != lastAdded) {
      const auto sum = sets_.unite(target[i], added);
      if (!sum) {
        const auto [first, last] = partition_.segmentsOf(range);
        problem_ = VerificationReport{VerificationProblem::DoubleCounted, rank, receive,
                                      program.describe(receive) + " adds " + sets_.describe(added) + " to elements " +
                                          toString(partition_.segment(first + i)) + " that already hold " +
                                          sets_.sharedRanks(target[i], added)};
        return false;
      }
      lastHeld = target[i];
      lastAdded = added;
      lastSum = *sum;
      cached = true;
    }
    target[i] = lastSum;
  }
  return true;
}

std::optional<VerificationReport> SymbolicBuffers::checkResult() {
  const ContributionId everyone = sets_.allOf(spec_.ranks);
  auto mismatch = [&](Rank rank, Range range, ContributionId expected,
                      const std::string& what) -> std::optional<VerificationReport> {
    const auto values = segmentsOf(rank, range);
    const auto wrong = std::ranges::find_if(values, [&](ContributionId id) { return id != expected; });
    if (wrong == values.end()) return std::nullopt;
    const std::size_t segment = partition_.segmentsOf(range).first + static_cast<std::size_t>(wrong - values.begin());
    return VerificationReport{VerificationProblem::WrongResult, rank, -1,
                              "rank " + std::to_string(rank) + " ends with elements " +
                                  toString(partition_.segment(segment)) + " holding " + sets_.describe(*wrong) +
                                  " instead of " + what};
  };
  const std::string all = "all " + std::to_string(spec_.ranks) + " ranks";
  for (Rank rank = 0; rank < spec_.ranks; ++rank) {
    std::optional<VerificationReport> wrong;
    switch (spec_.kind) {
      case CollectiveKind::Allreduce:
        wrong = mismatch(rank, spec_.buffer(), everyone, all);
        break;
      case CollectiveKind::ReduceScatter:
        wrong = mismatch(rank, blockOf(spec_.buffer(), spec_.ranks, rank), everyone, all + " in its own block");
        break;
      case CollectiveKind::AllGather:
        for (Rank origin = 0; origin < spec_.ranks && !wrong; ++origin)
          wrong = mismatch(rank, blockOf(spec_.buffer(), spec_.ranks, origin), sets_.single(origin),
                           "rank " + std::to_string(origin) + "'s block");
        break;
    }
    if (wrong) return wrong;
  }
  return std::nullopt;
}

}  // namespace ddl
