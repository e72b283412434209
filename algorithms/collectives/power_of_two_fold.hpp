#pragma once
// Running a power-of-two algorithm on any group (MPICH's approach, Thakur, Rabenseifner & Gropp 2005):
// with p' the largest power of two <= g and r = g - p', each of the first r even members hands its range
// to the odd member after it and sits out; the odd member reduces the two and takes part for both; at the
// end it hands the result back.

#include "algorithms/cost/cost_model.hpp"
#include "algorithms/schedule/group.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {

class PowerOfTwoFold {
 public:
  explicit PowerOfTwoFold(const Group& group);

  int activeSize() const { return activeSize_; }
  // Members 0 .. 2r-1 pair up; an even member among them sits out.
  int remainder() const { return group_.size - activeSize_; }
  // The rank taking part as active member `active`, 0 <= active < activeSize().
  Rank activeRank(int active) const {
    return group_.rank(active < remainder() ? 2 * active + 1 : active + remainder());
  }
  // The active index of `rank`, or -1 if it sits out (or is not in the group).
  int activeIndexOf(Rank rank) const;

  // Steps before the power-of-two algorithm: the sitting-out member sends `range`, its partner reduces it.
  void appendFoldIn(ProgramBuilder& builder, Range range) const;
  // Steps after it: the partner returns the finished `range` to the sitting-out member.
  void appendFoldOut(ProgramBuilder& builder, Range range) const;

  // Time the fold adds to the critical path: nothing for a power of two, else a full-buffer reduce step and
  // a full-buffer copy step.
  static double seconds(int members, double bytes, const LinkCost& link, double reduceSecondsPerByte);

 private:
  Group group_;
  int activeSize_;
};

int largestPowerOfTwoAtMost(int value);
int log2Exact(int powerOfTwo);

}  // namespace ddl
