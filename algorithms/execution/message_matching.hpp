#pragma once
// Pairs every send with its receive: the k-th send from a to b on channel c with the k-th receive at b
// from a on channel c. A send and its receive name the same range: every collective here keeps block b
// at the same place in every rank's buffer, so data never moves to another offset.

#include <optional>
#include <string>
#include <vector>

#include "algorithms/schedule/program.hpp"

namespace ddl {

struct UnmatchedStep {
  Rank rank;
  StepIndex step;
  std::string message;
};

class MessageMatching {
 public:
  // Matches the programs of ranks 0 .. programs.size()-1 (programs[r].rank() == r). If some step has no
  // match, or names another range than its match, firstProblem() names the lowest such
  // rank and step.
  explicit MessageMatching(const std::vector<Program>& programs);

  const std::optional<UnmatchedStep>& firstProblem() const { return firstProblem_; }
  // The step at `programs[rank].step(step).peer` that matches; valid only without a problem.
  StepIndex counterpart(Rank rank, StepIndex step) const {
    return counterparts_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(step)];
  }

 private:
  std::vector<std::vector<StepIndex>> counterparts_;
  std::optional<UnmatchedStep> firstProblem_;
};

}  // namespace ddl
