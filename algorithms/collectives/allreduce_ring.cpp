// ring: reduce-scatter around a ring of all ranks, then all-gather around it (Patarasuk & Yuan 2009;
// Baidu's "ring allreduce"; the default of DDL without a mode, and of NCCL for large messages).

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/ring_phases.hpp"

namespace ddl {
namespace {

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions&, int) {
  appendRingReduceScatter(builder, group, range);
  appendRingAllGather(builder, group, range);
}

double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions&, const CostModel& model) {
  return ringReduceScatterSeconds(spec.ranks, spec.elements, spec.elementBytes, model.link(0),
                                  model.reduceSecondsPerByte()) +
         ringAllGatherSeconds(spec.ranks, spec.elements, spec.elementBytes, model.link(0));
}

// Rank r + 1 sends and receives the chunks rank r does, one chunk on; with every chunk of one size, its
// program is rank r's moved by one rank. Chunks of two sizes (P does not divide the elements) break it.
int translationPeriod(const CollectiveSpec& spec, const AlgorithmOptions&) { return spec.elements % spec.ranks == 0 ? 1 : 0; }

}  // namespace

const AlgorithmDefinition kRingAllreduce{
    .name = "ring",
    .collective = CollectiveKind::Allreduce,
    .summary = "reduce-scatter then all-gather around one ring of all ranks",
    .composable = true,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
    .translationPeriod = translationPeriod,
};

}  // namespace ddl
