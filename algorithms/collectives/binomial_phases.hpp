#pragma once
// Reduce to and broadcast from member 0 of a group along a binomial tree: member m's parent is m with
// its lowest set bit cleared. The building blocks of binomial-tree and of the intra-node phases of
// hierarchical.

#include "algorithms/cost/cost_model.hpp"
#include "algorithms/schedule/group.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {

// Member m receives-and-reduces `range` from m+1, m+2, m+4, ... (below its lowest set bit and the group
// size), in that order, then sends it to its parent. Member 0 ends with the group's sum.
void appendBinomialReduce(ProgramBuilder& builder, const Group& group, Range range);
// Member m receives `range` from its parent, then sends it to m + 2^j for decreasing j.
void appendBinomialBroadcast(ProgramBuilder& builder, const Group& group, Range range);

// Exact schedule times. The reduce is a recurrence over subtree sizes: a member's transfers from its
// children overlap, its reductions of the one buffer run one after another in program order. The
// broadcast's longest path has floor(lg g) hops (member 2^k − 1 ≤ g − 1 has k set bits).
double binomialReduceSeconds(int members, double bytes, const LinkCost& link, double reduceSecondsPerByte);
double binomialBroadcastSeconds(int members, double bytes, const LinkCost& link);

}  // namespace ddl
