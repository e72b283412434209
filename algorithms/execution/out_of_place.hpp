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
  // wrote any of it, otherwise the output.
  bool readsInput(StepIndex step) const { return readsInput_[static_cast<std::size_t>(step)]; }
  // What the run copies from input to output before its first step, in order and apart:
  // - what no step writes (a rank's own block of an all-gather, a one-rank program's whole buffer), whose
  //   result is the input's values;
  // - the unwritten parts of a range that a step reads where another part of it was written (a range that
  //   straddles a write, which no algorithm of the registry has), so that the step reads it all from the
  //   output.
  // Either part is written by no step before the step that reads it, and by steps ordered after that step
  // only, so the copy may run first; the steps that read the input there find the same values.
  std::span<const Range> copiedFirst() const { return copiedFirst_; }

 private:
  std::vector<std::uint8_t> readsInput_;  // per step; bytes, not a vector<bool>, read on the hot path
  std::vector<Range> copiedFirst_;
};

}  // namespace ddl
