#include "algorithms/execution/out_of_place.hpp"

#include "algorithms/schedule/interval_map.hpp"

namespace ddl {
namespace {

// The map splits runs at every range it is asked about and never joins them again: join adjacent ones
// here, so that one copy covers what one copy can.
void appendJoined(std::vector<Range>& ranges, std::size_t first, Range range) {
  if (ranges.size() > first && ranges.back().end() == range.offset) {
    ranges.back().count += range.count;
  } else {
    ranges.push_back(range);
  }
}

}  // namespace

OutOfPlacePlan::OutOfPlacePlan(const Program& program)
    : readsInput_(static_cast<std::size_t>(program.size()), 0) {
  IntervalMap<bool> written(program.elements(), false);
  copiesBegin_.reserve(static_cast<std::size_t>(program.size()) + 1);
  for (StepIndex index = 0; index < program.size(); ++index) {
    copiesBegin_.push_back(static_cast<std::int32_t>(copies_.size()));
    const Step& step = program.step(index);
    if (step.range.empty()) continue;
    if (step.reads()) {
      bool anyWritten = false;
      const std::size_t firstCopy = copies_.size();
      written.update(step.range, [&](Range run, bool isWritten) {
        if (isWritten) {
          anyWritten = true;
        } else {
          appendJoined(copies_, firstCopy, run);
        }
      });
      if (!anyWritten) {
        readsInput_[static_cast<std::size_t>(index)] = 1;
        copies_.resize(firstCopy);  // read where they are
      }
    }
    if (step.writes()) written.update(step.range, [](Range, bool& isWritten) { isWritten = true; });
  }
  copiesBegin_.push_back(static_cast<std::int32_t>(copies_.size()));
  written.update({0, program.elements()}, [&](Range run, bool isWritten) {
    if (!isWritten) appendJoined(neverWritten_, 0, run);
  });
}

}  // namespace ddl
