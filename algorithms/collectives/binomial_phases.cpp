#include "algorithms/collectives/binomial_phases.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace ddl {

void appendBinomialReduce(ProgramBuilder& builder, const Group& group, Range range) {
  if (!group.contains(builder.self())) return;
  const int me = group.indexOf(builder.self());
  for (int mask = 1; mask < group.size; mask *= 2) {
    if (me & mask) {
      builder.send(group.rank(me - mask), range);
      return;
    }
    if (me + mask < group.size) builder.receiveReduce(group.rank(me + mask), range);
  }
}

void appendBinomialBroadcast(ProgramBuilder& builder, const Group& group, Range range) {
  if (!group.contains(builder.self())) return;
  const int me = group.indexOf(builder.self());
  if (me != 0) builder.receiveCopy(group.rank(me & (me - 1)), range);
  const int lowestBit = me == 0 ? static_cast<int>(std::bit_ceil(static_cast<unsigned>(group.size))) : (me & -me);
  for (int mask = lowestBit / 2; mask >= 1; mask /= 2)
    if (me + mask < group.size) builder.send(group.rank(me + mask), range);
}

namespace {

// Time for the root of a binomial subtree of `size` members to hold the subtree's sum.
double subtreeReduceSeconds(int size, double transfer, double reduce, std::map<int, double>& memo) {
  if (size <= 1) return 0;
  if (auto it = memo.find(size); it != memo.end()) return it->second;
  double done = 0;
  for (int mask = 1; mask < size; mask *= 2) {
    const double arrival = subtreeReduceSeconds(std::min(mask, size - mask), transfer, reduce, memo) + transfer;
    done = std::max(done, arrival) + reduce;
  }
  memo[size] = done;
  return done;
}

}  // namespace

double binomialReduceSeconds(int members, double bytes, const LinkCost& link, double reduceSecondsPerByte) {
  std::map<int, double> memo;
  return subtreeReduceSeconds(members, link.messageSeconds(bytes), bytes * reduceSecondsPerByte, memo);
}

double binomialBroadcastSeconds(int members, double bytes, const LinkCost& link) {
  const int hops = std::bit_width(static_cast<unsigned>(members)) - 1;
  return hops * link.messageSeconds(bytes);
}

}  // namespace ddl
