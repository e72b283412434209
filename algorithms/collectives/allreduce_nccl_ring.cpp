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
#include "algorithms/collectives/ring_phases.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

int channelsOf(const AlgorithmOptions& options) { return options.channels.value_or(1); }
int ranksPerNodeOf(const AlgorithmOptions& options) { return static_cast<int>(options.ranksPerNode.value_or(1)); }

void validate(int ranks, const AlgorithmOptions& options) {
  const int perNode = ranksPerNodeOf(options);
  if (perNode < 1 || ranks % perNode != 0)
    throw InvalidArgument("ranks-per-node", std::to_string(perNode) + " does not divide " + std::to_string(ranks) +
                                                " ranks into whole nodes");
  const int channels = channelsOf(options);
  if (channels < 1 || channels > kMaxChannels)
    throw InvalidArgument("channels", "must be 1 to " + std::to_string(kMaxChannels) + ", got " + std::to_string(channels));
}

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options, int) {
  const int channels = channelsOf(options);
  const int perNode = ranksPerNodeOf(options);
  for (int c = 0; c < channels; ++c) {
    const RingOrder ring{group, perNode, c % perNode};
    const Range part = blockOf(range, channels, c);
    appendRingReduceScatter(builder, ring, part, static_cast<Channel>(c));
    appendRingAllGather(builder, ring, part, static_cast<Channel>(c));
  }
}

// With no link shared, the channels run apart, and the one with the largest part (channel 0) ends last: a
// ring over ceil(n / C) elements.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  const Elements part = largestBlock(spec.elements, channelsOf(options));
  return ringReduceScatterSeconds(spec.ranks, part, spec.elementBytes, model.link(0), model.reduceSecondsPerByte()) +
         ringAllGatherSeconds(spec.ranks, part, spec.elementBytes, model.link(0));
}

std::string describe(const AlgorithmOptions& options) {
  const int channels = channelsOf(options);
  return "nccl-ring " + std::to_string(channels) + (channels == 1 ? " channel, " : " channels, ") +
         std::to_string(ranksPerNodeOf(options)) + " per node";
}

}  // namespace

const AlgorithmDefinition kNcclRingAllreduce{
    .name = "nccl-ring",
    .collective = CollectiveKind::Allreduce,
    .summary = "rings side by side on parts of the buffer, each entering every node at another rank (NCCL's channels over every rail)",
    .options = kChannels | kRanksPerNode,
    .validate = validate,
    .describe = describe,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
