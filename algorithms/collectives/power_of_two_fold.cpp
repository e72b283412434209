#include "algorithms/collectives/power_of_two_fold.hpp"

#include <bit>

namespace ddl {

int largestPowerOfTwoAtMost(int value) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(value))); }
int log2Exact(int powerOfTwo) { return std::countr_zero(static_cast<unsigned>(powerOfTwo)); }

PowerOfTwoFold::PowerOfTwoFold(const Group& group) : group_(group), activeSize_(largestPowerOfTwoAtMost(group.size)) {}

int PowerOfTwoFold::activeIndexOf(Rank rank) const {
  if (!group_.contains(rank)) return -1;
  const int member = group_.indexOf(rank);
  if (member >= 2 * remainder()) return member - remainder();
  return member % 2 == 1 ? member / 2 : -1;
}

void PowerOfTwoFold::appendFoldIn(ProgramBuilder& builder, Range range) const {
  if (!group_.contains(builder.self())) return;
  const int member = group_.indexOf(builder.self());
  if (member >= 2 * remainder()) return;
  if (member % 2 == 0) {
    builder.send(group_.rank(member + 1), range);
  } else {
    builder.receiveReduce(group_.rank(member - 1), range);
  }
}

void PowerOfTwoFold::appendFoldOut(ProgramBuilder& builder, Range range) const {
  if (!group_.contains(builder.self())) return;
  const int member = group_.indexOf(builder.self());
  if (member >= 2 * remainder()) return;
  if (member % 2 == 0) {
    builder.receiveCopy(group_.rank(member + 1), range);
  } else {
    builder.send(group_.rank(member - 1), range);
  }
}

double PowerOfTwoFold::seconds(int members, double bytes, const LinkCost& link, double reduceSecondsPerByte) {
  if (largestPowerOfTwoAtMost(members) == members) return 0;
  return 2 * link.messageSeconds(bytes) + bytes * reduceSecondsPerByte;
}

}  // namespace ddl
