// nccl-ring reduce-scatter and all-gather: NCCL's ring kernels for the two halves of an allreduce, over C
// channels. Every rank's block (its own data, placed by its rank whatever the ring's order) is cut into C
// parts, and channel c's ring reduces or gathers part c of every block, side by side with the others. The
// rings enter and leave the nodes as nccl-ring's allreduce does, so the channels spread the traffic between
// nodes over every NIC of a node (allreduce_nccl_ring.cpp says how).

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/nccl_channels.hpp"
#include "algorithms/collectives/ring_phases.hpp"

namespace ddl {
namespace {

using ChannelRingPhase = void (*)(ProgramBuilder&, const RingOrder&, Range, int channels, int channel);

template <ChannelRingPhase phase>
void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options, int) {
  const int channels = ncclChannelsOf(options);
  for (int c = 0; c < channels; ++c) phase(builder, ncclChannelRing(group, options, c), range, channels, c);
}

// With no link shared, the channels run apart, and channel 0, whose parts are the largest, ends last: a ring
// whose blocks are that part.
Elements largestPartTimesRanks(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  return largestBlock(largestBlock(spec.elements, spec.ranks), ncclChannelsOf(options)) * spec.ranks;
}

std::string describe(const AlgorithmOptions& options) { return describeNcclChannels("nccl-ring", options); }

}  // namespace

const AlgorithmDefinition kNcclRingReduceScatter{
    .name = "nccl-ring",
    .collective = CollectiveKind::ReduceScatter,
    .summary = "rings side by side, each reducing one part of every rank's block and entering every node at another rank (NCCL's channels over every rail)",
    .options = kChannels | kRanksPerNode,
    .validate = validateNcclChannels,
    .describe = describe,
    .append = append<appendChannelRingReduceScatter>,
    .closedFormSeconds =
        [](const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
          return ringReduceScatterSeconds(spec.ranks, largestPartTimesRanks(spec, options), spec.elementBytes, model.link(0),
                                          model.reduceSecondsPerByte());
        },
    .translationPeriod = ncclRingOfBlocksTranslationPeriod,
};

const AlgorithmDefinition kNcclRingAllGather{
    .name = "nccl-ring",
    .collective = CollectiveKind::AllGather,
    .summary = "rings side by side, each gathering one part of every rank's block and entering every node at another rank (NCCL's channels over every rail)",
    .options = kChannels | kRanksPerNode,
    .validate = validateNcclChannels,
    .describe = describe,
    .append = append<appendChannelRingAllGather>,
    .closedFormSeconds =
        [](const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
          return ringAllGatherSeconds(spec.ranks, largestPartTimesRanks(spec, options), spec.elementBytes, model.link(0));
        },
    .translationPeriod = ncclRingOfBlocksTranslationPeriod,
};

}  // namespace ddl
