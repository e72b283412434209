#include "algorithms/schedule/program_builder.hpp"

#include <algorithm>
#include <string>

#include "common/invalid_argument.hpp"

namespace ddl {

StepIndex ProgramBuilder::add(StepKind kind, Rank peer, Range range, Channel channel) {
  if (steps_.size() >= static_cast<std::size_t>(kMaxStepsPerProgram))
    throw InvalidArgument("schedule", "rank " + std::to_string(self_) + "'s program would have more than " +
                                          std::to_string(kMaxStepsPerProgram) +
                                          " steps (a limit that keeps one program within about a gigabyte): "
                                          "use fewer ranks, or larger chunks or pieces");
  Step step;
  step.kind = kind;
  step.peer = peer;
  step.range = range;
  step.channel = channel;
  const auto index = static_cast<StepIndex>(steps_.size());

  const auto first = dependencies_.size();
  hazards_.access(index, range, step.reads(), step.writes(),
                  [&](StepIndex earlier) { dependencies_.push_back(earlier); });
  std::sort(dependencies_.begin() + static_cast<std::ptrdiff_t>(first), dependencies_.end());
  dependencies_.erase(std::unique(dependencies_.begin() + static_cast<std::ptrdiff_t>(first), dependencies_.end()),
                      dependencies_.end());
  step.firstDependency = static_cast<std::int32_t>(first);
  step.dependencyCount = static_cast<std::int32_t>(dependencies_.size() - first);
  steps_.push_back(step);
  return index;
}

Program ProgramBuilder::finish() && {
  return Program(self_, elements_, std::move(steps_), std::move(dependencies_));
}

}  // namespace ddl
