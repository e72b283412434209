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

}  // namespace

const AlgorithmDefinition kRingAllreduce{
    .name = "ring",
    .collective = CollectiveKind::Allreduce,
    .summary = "reduce-scatter then all-gather around one ring of all ranks",
    .composable = true,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
    .translationPeriod = ringTranslationPeriod,
};

}  // namespace ddl
