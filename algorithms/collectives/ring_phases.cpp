#include "algorithms/collectives/ring_phases.hpp"

namespace ddl {
namespace {

// The calling rank's place in a ring.
struct RingPosition {
  int size;
  int me;
  Rank right;
  Rank left;

  RingPosition(const RingOrder& ring, Rank self)
      : size(ring.size()), me(ring.position(self)), right(ring.rank(wrap(me + 1))), left(ring.rank(wrap(me - 1))) {}
  // The block of the ring position `offset` on from this member's: blocks numbered by ring position.
  Range block(Range range, int offset) const { return blockOf(range, size, wrap(me + offset)); }
  // Part `part` of `parts` of the block of the member at that position, blocks numbered by member: the
  // member's own elements, wherever the ring visits it.
  Range partOfMemberBlock(const RingOrder& order, Range range, int offset, int parts, int part) const {
    const int member = order.group.indexOf(order.rank(wrap(me + offset)));
    return blockOf(blockOf(range, size, member), parts, part);
  }
  int wrap(int index) const { return ((index % size) + size) % size; }
};

// In step s the member sends the block s + 1 positions behind it and reduces into the one s + 2 behind, so
// each block travels size − 1 hops collecting one contribution per hop and ends at its own position.
template <typename BlockAt>
void reduceScatterSteps(ProgramBuilder& builder, const RingPosition& ring, const BlockAt& blockAt, Channel channel) {
  for (int step = 0; step < ring.size - 1; ++step) {
    builder.send(ring.right, blockAt(-step - 1), channel);
    builder.receiveReduce(ring.left, blockAt(-step - 2), channel);
  }
}

// In step s the member forwards the block s positions behind it and receives the one s + 1 behind.
template <typename BlockAt>
void allGatherSteps(ProgramBuilder& builder, const RingPosition& ring, const BlockAt& blockAt, Channel channel) {
  for (int step = 0; step < ring.size - 1; ++step) {
    builder.send(ring.right, blockAt(-step), channel);
    builder.receiveCopy(ring.left, blockAt(-step - 1), channel);
  }
}

}  // namespace

void appendRingReduceScatter(ProgramBuilder& builder, const Group& group, Range range, Channel channel) {
  appendRingReduceScatter(builder, RingOrder{group}, range, channel);
}

void appendRingAllGather(ProgramBuilder& builder, const Group& group, Range range, Channel channel) {
  appendRingAllGather(builder, RingOrder{group}, range, channel);
}

void appendRingReduceScatter(ProgramBuilder& builder, const RingOrder& order, Range range, Channel channel) {
  if (!order.group.contains(builder.self()) || order.size() < 2) return;
  const RingPosition ring(order, builder.self());
  reduceScatterSteps(builder, ring, [&](int offset) { return ring.block(range, offset); }, channel);
}

void appendRingAllGather(ProgramBuilder& builder, const RingOrder& order, Range range, Channel channel) {
  if (!order.group.contains(builder.self()) || order.size() < 2) return;
  const RingPosition ring(order, builder.self());
  allGatherSteps(builder, ring, [&](int offset) { return ring.block(range, offset); }, channel);
}

void appendChannelRingReduceScatter(ProgramBuilder& builder, const RingOrder& order, Range range, int channels, int channel) {
  if (!order.group.contains(builder.self()) || order.size() < 2) return;
  const RingPosition ring(order, builder.self());
  reduceScatterSteps(builder, ring, [&](int offset) { return ring.partOfMemberBlock(order, range, offset, channels, channel); },
                     static_cast<Channel>(channel));
}

void appendChannelRingAllGather(ProgramBuilder& builder, const RingOrder& order, Range range, int channels, int channel) {
  if (!order.group.contains(builder.self()) || order.size() < 2) return;
  const RingPosition ring(order, builder.self());
  allGatherSteps(builder, ring, [&](int offset) { return ring.partOfMemberBlock(order, range, offset, channels, channel); },
                 static_cast<Channel>(channel));
}

double ringReduceScatterSeconds(int members, Elements elements, int elementBytes, const LinkCost& link,
                                double reduceSecondsPerByte) {
  const double block = static_cast<double>(largestBlock(elements, members)) * elementBytes;
  return (members - 1) * (link.messageSeconds(block) + block * reduceSecondsPerByte);
}

double ringAllGatherSeconds(int members, Elements elements, int elementBytes, const LinkCost& link) {
  const double block = static_cast<double>(largestBlock(elements, members)) * elementBytes;
  return (members - 1) * link.messageSeconds(block);
}

int ringTranslationPeriod(const CollectiveSpec& spec, const AlgorithmOptions&) { return spec.elements % spec.ranks == 0 ? 1 : 0; }

}  // namespace ddl
