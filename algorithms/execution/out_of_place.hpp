#pragma once
// Running a program out of place: the collective reads one buffer (`input`, nccl-tests' sendbuff) and
// leaves its result in another (`output`, recvbuff), never writing the input and never copying it whole.
// A schedule is written in place, over one buffer; out of place, each element's current value lives in
// the input until a step of the program first writes it (a receive-copy, or a receive-reduce, which adds
// the arrived values to the current ones and stores the sum in the output), and in the output after.
//
// Which it is, at each step, follows from the program alone. The verifier's race check proves that every
// step which writes a range a later step reads is ordered before that reader, and every write after it
// is ordered after it; dependencies point to earlier steps. So, walking the steps in program order, the
// writes seen before a step are exactly those that happen before it in every run: where its range has
// been written, its values are in the output, elsewhere still in the input.

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/schedule/program.hpp"

namespace ddl {

class OutOfPlacePlan {
 public:
  explicit OutOfPlacePlan(const Program& program);

  // Where a send or receive-reduce reads the current values of its range: the input where no earlier step
  // wrote any of it, otherwise the output, once copiesBefore(step) have been copied from input to output.
  bool readsInput(StepIndex step) const { return readsInput_[static_cast<std::size_t>(step)]; }
  // The parts of the step's range no earlier step wrote, where another part was written (a range that
  // straddles a write, which no algorithm of the registry has): copied when the step reads, not before,
  // since until then steps ordered before it may still be reading or writing around them.
  std::span<const Range> copiesBefore(StepIndex step) const {
    const auto begin = static_cast<std::size_t>(copiesBegin_[static_cast<std::size_t>(step)]);
    const auto end = static_cast<std::size_t>(copiesBegin_[static_cast<std::size_t>(step) + 1]);
    return std::span<const Range>(copies_).subspan(begin, end - begin);
  }
  // What no step writes (a rank's own block of an all-gather, a one-rank program's whole buffer): the
  // input's values are the result there, copied to the output. No step writes these ranges and those
  // that read them read the input, so the copy may run at any time.
  std::span<const Range> neverWritten() const { return neverWritten_; }

 private:
  std::vector<std::uint8_t> readsInput_;  // per step; bytes, not a vector<bool>, read on the hot path
  std::vector<Range> copies_;
  std::vector<std::int32_t> copiesBegin_;  // copiesBefore(s) = copies_[copiesBegin_[s] .. copiesBegin_[s+1])
  std::vector<Range> neverWritten_;
};

}  // namespace ddl
