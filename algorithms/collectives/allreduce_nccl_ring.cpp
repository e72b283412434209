// nccl-ring: NCCL's ring allreduce over C channels. The buffer is cut into C parts, and part c is reduced by a
// ring of its own, on channel c, side by side with the others. Every ring visits the nodes in the same order,
// but ring c enters each node at local rank c (mod the ranks per node) and leaves it from the rank before,
// so C channels spread the traffic between nodes over every NIC of a node (every rail) in both directions.
// NCCL's topology search does the same (src/graph/search.cc, v2.23.4-1): channel c enters a node through NIC
// c at GPU c and leaves through the same NIC, the last GPU reaching it over NVLink (PXN). Here the last rank
// leaves through the NIC its node's routes give it (its own on DGX H100): on a fabric where any NIC reaches
// any other at full rate, every NIC still carries one channel out and one in. A plain ring (`ring`) crosses
// between nodes through one NIC only.

#include <string>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/nccl_channels.hpp"
#include "algorithms/collectives/ring_phases.hpp"

namespace ddl {
namespace {

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options, int) {
  const int channels = ncclChannelsOf(options);
  for (int c = 0; c < channels; ++c) {
    const RingOrder ring = ncclChannelRing(group, options, c);
    const Range part = blockOf(range, channels, c);
    appendRingReduceScatter(builder, ring, part, static_cast<Channel>(c));
    appendRingAllGather(builder, ring, part, static_cast<Channel>(c));
  }
}

// With no link shared, the channels run apart, and the one with the largest part (channel 0) ends last: a
// ring over ceil(n / C) elements.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  const Elements part = largestBlock(spec.elements, ncclChannelsOf(options));
  return ringReduceScatterSeconds(spec.ranks, part, spec.elementBytes, model.link(0), model.reduceSecondsPerByte()) +
         ringAllGatherSeconds(spec.ranks, part, spec.elementBytes, model.link(0));
}

std::string describe(const AlgorithmOptions& options) { return describeNcclChannels("nccl-ring", options); }

// Moving every rank by a node moves it a node's ranks along every channel's ring, each ring entering and
// leaving every node at the same local ranks: the same program moved, where every channel's part splits
// into blocks of one size (the channels times the ranks divide the elements).
int translationPeriod(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  if (spec.elements % (static_cast<Elements>(ncclChannelsOf(options)) * spec.ranks) != 0) return 0;
  return ncclRanksPerNodeOf(options);
}

}  // namespace

const AlgorithmDefinition kNcclRingAllreduce{
    .name = "nccl-ring",
    .collective = CollectiveKind::Allreduce,
    .summary = "rings side by side on parts of the buffer, each entering every node at another rank (NCCL's channels over every rail)",
    .options = kChannels | kRanksPerNode,
    .validate = validateNcclChannels,
    .describe = describe,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
    .translationPeriod = translationPeriod,
};

}  // namespace ddl
