// All-gather around a ring: every rank ends with every rank's block.

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/ring_phases.hpp"

namespace ddl {

const AlgorithmDefinition kRingAllGather{
    .name = "ring",
    .collective = CollectiveKind::AllGather,
    .summary = "p-1 steps around a ring, each forwarding one block",
    .composable = true,
    .append = [](ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions&,
                 int) { appendRingAllGather(builder, group, range); },
    .closedFormSeconds =
        [](const CollectiveSpec& spec, const AlgorithmOptions&, const CostModel& model) {
          return ringAllGatherSeconds(spec.ranks, spec.elements, spec.elementBytes, model.link(0));
        },
    .translationPeriod = ringTranslationPeriod,
};

}  // namespace ddl
