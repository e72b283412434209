#include "algorithms/execution/out_of_place.hpp"

#include <algorithm>

#include "algorithms/schedule/interval_map.hpp"

namespace ddl {
namespace {

// Sorted, with overlapping and adjacent ranges joined: one copy for what one copy can do.
std::vector<Range> joined(std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.offset < b.offset; });
  std::vector<Range> out;
  for (const Range& range : ranges) {
    if (!out.empty() && range.offset <= out.back().end()) {
      out.back().count = std::max(out.back().end(), range.end()) - out.back().offset;
    } else {
      out.push_back(range);
    }
  }
  return out;
}

}  // namespace

OutOfPlacePlan::OutOfPlacePlan(const Program& program) : readsInput_(static_cast<std::size_t>(program.size()), 0) {
  IntervalMap<bool> written(program.elements(), false);
  std::vector<Range> copies;
  for (StepIndex index = 0; index < program.size(); ++index) {
    const Step& step = program.step(index);
    if (step.range.empty()) continue;
    if (step.reads()) {
      bool anyWritten = false;
      std::vector<Range> unwritten;
      written.update(step.range, [&](Range run, bool isWritten) {
        if (isWritten) {
          anyWritten = true;
        } else {
          unwritten.push_back(run);
        }
      });
      if (anyWritten) {
        copies.insert(copies.end(), unwritten.begin(), unwritten.end());
      } else {
        readsInput_[static_cast<std::size_t>(index)] = 1;
      }
    }
    if (step.writes()) written.update(step.range, [](Range, bool& isWritten) { isWritten = true; });
  }
  written.update({0, program.elements()}, [&](Range run, bool isWritten) {
    if (!isWritten) copies.push_back(run);
  });
  copiedFirst_ = joined(std::move(copies));
}

}  // namespace ddl
