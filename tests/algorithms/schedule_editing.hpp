#pragma once
// Hand edits of generated schedules, to show the verifier rejects each kind of mistake.

#include <algorithm>
#include <vector>

#include "algorithms/schedule/schedule.hpp"

namespace ddl::testing {

struct EditableStep {
  Step step;
  std::vector<StepIndex> after;
};

inline std::vector<EditableStep> editable(const Program& program) {
  std::vector<EditableStep> steps;
  for (StepIndex i = 0; i < program.size(); ++i) {
    auto dependencies = program.dependenciesOf(i);
    steps.push_back({program.step(i), {dependencies.begin(), dependencies.end()}});
  }
  return steps;
}

inline Program rebuild(Rank rank, Elements elements, const std::vector<EditableStep>& edited) {
  std::vector<Step> steps;
  std::vector<StepIndex> dependencies;
  for (const EditableStep& e : edited) {
    Step step = e.step;
    step.firstDependency = static_cast<std::int32_t>(dependencies.size());
    step.dependencyCount = static_cast<std::int32_t>(e.after.size());
    dependencies.insert(dependencies.end(), e.after.begin(), e.after.end());
    steps.push_back(step);
  }
  return Program(rank, elements, std::move(steps), std::move(dependencies));
}

// Removes step `index`, dropping dependencies on it and renumbering later ones.
inline std::vector<EditableStep> withoutStep(std::vector<EditableStep> steps, StepIndex index) {
  steps.erase(steps.begin() + index);
  for (EditableStep& s : steps) {
    std::erase(s.after, index);
    for (StepIndex& d : s.after)
      if (d > index) --d;
  }
  return steps;
}

// Repeats step `index` right after itself: the copy is ordered after the original, and every step that
// waited for the original waits for the copy too.
inline std::vector<EditableStep> withStepRepeated(std::vector<EditableStep> steps, StepIndex index) {
  for (EditableStep& s : steps) {
    for (StepIndex& d : s.after)
      if (d > index) ++d;
    if (std::find(s.after.begin(), s.after.end(), index) != s.after.end()) s.after.push_back(index + 1);
  }
  EditableStep copy = steps[static_cast<std::size_t>(index)];
  copy.after.push_back(index);
  steps.insert(steps.begin() + index + 1, copy);
  return steps;
}

// The schedule with rank `rank`'s program replaced by `edit(its steps)`.
template <class Edit>
Schedule edited(const Schedule& schedule, Rank rank, Edit&& edit) {
  std::vector<Program> programs = schedule.allPrograms();
  programs[static_cast<std::size_t>(rank)] =
      rebuild(rank, schedule.spec().elements, edit(editable(programs[static_cast<std::size_t>(rank)])));
  return Schedule::fromPrograms(schedule.spec(), schedule.description() + " (edited)", std::move(programs));
}

}  // namespace ddl::testing
