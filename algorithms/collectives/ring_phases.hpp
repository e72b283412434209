#pragma once
// The two halves of a ring allreduce, usable on any group and range: the building blocks of ring, ddl and
// torus-2d. Member i sends to member i+1 and receives from member i−1 (mod the group size).

#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/cost/cost_model.hpp"
#include "algorithms/schedule/group.hpp"
#include "algorithms/schedule/collective.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {

// The order in which a ring visits a group's members. The group falls into runs of `runLength`
// consecutive members (a node's ranks); the ring walks the runs in order and enters each at its member
// `firstInRun`, going round the run from there. So the ring's one crossing from each run to the next
// leaves from member firstInRun − 1 and enters at member firstInRun: rings that differ only in
// `firstInRun` cross between nodes from different GPUs, through different NICs (NCCL's channels on
// rails). runLength 1 is the plain ring of the group.
struct RingOrder {
  Group group;
  int runLength = 1;   // divides group.size
  int firstInRun = 0;  // 0 .. runLength − 1

  int size() const { return group.size; }
  // The member at `position` (0 .. size − 1) of the ring, and the position of member rank `rank`.
  Rank rank(int position) const {
    const int run = position - position % runLength;
    return group.rank(run + (position % runLength + firstInRun) % runLength);
  }
  int position(Rank member) const {
    const int index = group.indexOf(member);
    const int run = index - index % runLength;
    return run + (index % runLength - firstInRun + runLength) % runLength;
  }
};

// After g−1 steps member i holds blockOf(range, g, i) summed over the group. In step s member i sends
// block i−s−1 and receives-and-reduces block i−s−2, so each block travels g−1 hops collecting one
// contribution per hop and ends at the member of its index.
void appendRingReduceScatter(ProgramBuilder& builder, const Group& group, Range range, Channel channel = 0);
// The same with member i the ring's position i: blocks are numbered by ring position.
void appendRingReduceScatter(ProgramBuilder& builder, const RingOrder& ring, Range range, Channel channel = 0);

// Member i starts with blockOf(range, g, i); after g−1 steps every member holds every block. In step s
// member i sends block i−s and receives block i−s−1.
void appendRingAllGather(ProgramBuilder& builder, const Group& group, Range range, Channel channel = 0);
void appendRingAllGather(ProgramBuilder& builder, const RingOrder& ring, Range range, Channel channel = 0);

// NCCL's reduce-scatter and all-gather over channels (NCCL's ring kernels, src/device/all_gather.h and
// reduce_scatter.h, v2.23.4-1: a chunk's offset is its owner's rank times the count, whatever the ring's
// order): blocks are numbered by member, not by ring position, since member m's block is its own data; and
// channel `channel`'s ring moves part `channel` of `channels` of every block, so the channels' rings side by
// side each carry one part of every member's block. Member m ends with (reduce-scatter) or starts with
// (all-gather) blockOf(range, g, m) of the group's index m.
void appendChannelRingReduceScatter(ProgramBuilder& builder, const RingOrder& ring, Range range, int channels, int channel);
void appendChannelRingAllGather(ProgramBuilder& builder, const RingOrder& ring, Range range, int channels, int channel);

// Exact schedule times: every step moves at most ceil(n/g) elements, and the largest block's chain of
// g−1 hops is the critical path, so (g−1)(α + ⌈n/g⌉·s·(β+γ)) and (g−1)(α + ⌈n/g⌉·s·β) for element size s.
double ringReduceScatterSeconds(int members, Elements elements, int elementBytes, const LinkCost& link,
                                double reduceSecondsPerByte);
double ringAllGatherSeconds(int members, Elements elements, int elementBytes, const LinkCost& link);

// A ring of all ranks (allreduce, reduce-scatter, all-gather): rank r + 1 sends and receives the blocks rank
// r does, one block on; with every block of one size its program is rank r's moved by one rank (period 1).
// Blocks of two sizes (the ranks do not divide the elements) break it: 0, no claim.
int ringTranslationPeriod(const CollectiveSpec& spec, const AlgorithmOptions& options);

}  // namespace ddl
