#pragma once
// Whether a program orders every pair of its steps that touch the same elements with at least one writing.

#include <optional>
#include <string>

#include "algorithms/schedule/program.hpp"

namespace ddl {

struct Race {
  StepIndex earlier;
  StepIndex later;
  std::string message;
};

// A step completes before another touches the buffer if a chain of dependencies and stream order (a step
// is posted only after the previous one of its stream completed) leads from one to the other; channel
// order, which orders postings but not completions, does not count.
std::optional<Race> findRace(const Program& program);

}  // namespace ddl
