#pragma once
// The two halves of a ring allreduce, usable on any group and range: the building blocks of ring, ddl and
// torus-2d. Member i sends to member i+1 and receives from member i−1 (mod the group size).

#include "algorithms/cost/cost_model.hpp"
#include "algorithms/schedule/group.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {

// After g−1 steps member i holds blockOf(range, g, i) summed over the group. In step s member i sends
// block i−s−1 and receives-and-reduces block i−s−2, so each block travels g−1 hops collecting one
// contribution per hop and ends at the member of its index.
void appendRingReduceScatter(ProgramBuilder& builder, const Group& group, Range range, Channel channel = 0);

// Member i starts with blockOf(range, g, i); after g−1 steps every member holds every block. In step s
// member i sends block i−s and receives block i−s−1.
void appendRingAllGather(ProgramBuilder& builder, const Group& group, Range range, Channel channel = 0);

// Exact schedule times: every step moves at most ceil(n/g) elements, and the largest block's chain of
// g−1 hops is the critical path, so (g−1)(α + ⌈n/g⌉·s·(β+γ)) and (g−1)(α + ⌈n/g⌉·s·β) for element size s.
double ringReduceScatterSeconds(int members, Elements elements, int elementBytes, const LinkCost& link,
                                double reduceSecondsPerByte);
double ringAllGatherSeconds(int members, Elements elements, int elementBytes, const LinkCost& link);

}  // namespace ddl
