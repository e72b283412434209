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
  Range block(Range range, int offset) const { return blockOf(range, size, wrap(me + offset)); }
  int wrap(int index) const { return ((index % size) + size) % size; }
};

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
  for (int step = 0; step < ring.size - 1; ++step) {
    builder.send(ring.right, ring.block(range, -step - 1), channel);
    builder.receiveReduce(ring.left, ring.block(range, -step - 2), channel);
  }
}

void appendRingAllGather(ProgramBuilder& builder, const RingOrder& order, Range range, Channel channel) {
  if (!order.group.contains(builder.self()) || order.size() < 2) return;
  const RingPosition ring(order, builder.self());
  for (int step = 0; step < ring.size - 1; ++step) {
    builder.send(ring.right, ring.block(range, -step), channel);
    builder.receiveCopy(ring.left, ring.block(range, -step - 1), channel);
  }
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
