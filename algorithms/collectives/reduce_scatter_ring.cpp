// Reduce-scatter around a ring: rank r ends with block r summed over all ranks.

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/ring_phases.hpp"

namespace ddl {

const AlgorithmDefinition kRingReduceScatter{
    .name = "ring",
    .collective = CollectiveKind::ReduceScatter,
    .summary = "p-1 steps around a ring, each reducing one block",
    .composable = true,
    .append = [](ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions&,
                 int) { appendRingReduceScatter(builder, group, range); },
    .closedFormSeconds =
        [](const CollectiveSpec& spec, const AlgorithmOptions&, const CostModel& model) {
          return ringReduceScatterSeconds(spec.ranks, spec.elements, spec.elementBytes, model.link(0),
                                          model.reduceSecondsPerByte());
        },
    .translationPeriod = ringTranslationPeriod,
};

}  // namespace ddl
