#pragma once
// Which earlier steps of a rank a new step must be ordered after, from the ranges they read and write.
// The program builder turns these conflicts into dependencies; the race check proves a given program
// orders them. One mechanism, so that what the builder guarantees is exactly what the verifier checks.

#include <array>
#include <vector>

#include "algorithms/schedule/interval_map.hpp"
#include "algorithms/schedule/step.hpp"

namespace ddl {

class HazardTracker {
 public:
  explicit HazardTracker(Elements elements) : accesses_(elements, Accesses{}) {}

  // Records that step `index` reads and/or writes `range`, and calls conflict(earlier) for every earlier
  // step that must complete before this one touches the range: the last writer (read after write, write
  // after write) and, if this step writes, every reader since that write (write after read). A conflict
  // may be reported more than once when the range spans several runs.
  template <class Conflict>
  void access(StepIndex index, Range range, bool reads, bool writes, Conflict&& conflict) {
    accesses_.update(range, [&](Range, Accesses& state) {
      if (state.lastWriter >= 0) conflict(state.lastWriter);
      if (writes) {
        state.readers.forEach(conflict);
        state.readers.clear();
        state.lastWriter = index;
      } else if (reads) {
        state.readers.add(index);
      }
    });
  }

 private:
  // The readers since the last write. Nearly always one or two, so the first few live inline: runs are
  // copied whenever one is split, and a heap vector per run cost an allocation per step.
  class Readers {
   public:
    template <class Fn>
    void forEach(Fn&& fn) const {
      for (std::size_t i = 0; i < count_ && i < kInline; ++i) fn(inline_[i]);
      for (StepIndex step : overflow_) fn(step);
    }
    void clear() {
      count_ = 0;
      overflow_.clear();
    }
    void add(StepIndex step) {
      if (count_ < kInline) {
        inline_[count_] = step;
      } else {
        overflow_.push_back(step);
      }
      ++count_;
    }

   private:
    static constexpr std::size_t kInline = 4;
    std::array<StepIndex, kInline> inline_{};
    std::size_t count_ = 0;
    std::vector<StepIndex> overflow_;
  };
  struct Accesses {
    StepIndex lastWriter = -1;
    Readers readers;
  };

  IntervalMap<Accesses> accesses_;
};

}  // namespace ddl
