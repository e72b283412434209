#include "algorithms/verify/race_check.hpp"

#include <algorithm>

#include "algorithms/schedule/hazard_tracker.hpp"

namespace ddl {
namespace {

// Answers "must `earlier` complete before `later` touches the buffer?". A generated program lists every
// conflict as a direct dependency, so the search below only runs for programs written by hand.
class Ancestry {
 public:
  explicit Ancestry(const Program& program)
      : program_(program), visitedIn_(static_cast<std::size_t>(program.size()), 0) {}

  bool dependsOn(StepIndex later, StepIndex earlier) {
    const auto direct = program_.dependenciesOf(later);
    if (std::find(direct.begin(), direct.end(), earlier) != direct.end()) return true;
    ++search_;
    std::vector<StepIndex> frontier{later};
    while (!frontier.empty()) {
      const StepIndex step = frontier.back();
      frontier.pop_back();
      auto follow = [&](StepIndex before) {
        // Both kinds of edge point backwards, so nothing before `earlier` can lead to it.
        if (before < earlier || visitedIn_[static_cast<std::size_t>(before)] == search_) return;
        visitedIn_[static_cast<std::size_t>(before)] = search_;
        frontier.push_back(before);
      };
      for (StepIndex dependency : program_.dependenciesOf(step)) follow(dependency);
      follow(program_.previousInStream(step));
      if (visitedIn_[static_cast<std::size_t>(earlier)] == search_) return true;
    }
    return false;
  }

 private:
  const Program& program_;
  std::vector<std::uint32_t> visitedIn_;
  std::uint32_t search_ = 0;
};

}  // namespace

std::optional<Race> findRace(const Program& program) {
  HazardTracker hazards(program.elements());
  Ancestry ancestry(program);
  for (StepIndex step = 0; step < program.size(); ++step) {
    const Step& s = program.step(step);
    std::optional<StepIndex> unordered;
    hazards.access(step, s.range, s.reads(), s.writes(), [&](StepIndex earlier) {
      if (!unordered && !ancestry.dependsOn(step, earlier)) unordered = earlier;
    });
    if (unordered)
      return Race{*unordered, step,
                  program.describe(step) + " may run while " + program.describe(*unordered) +
                      " is in flight, and both touch the same elements; add a dependency between them"};
  }
  return std::nullopt;
}

}  // namespace ddl
