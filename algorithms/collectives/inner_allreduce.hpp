#pragma once
// The allreduce that hierarchical runs across node leaders and torus-2d runs down each column: any
// registered allreduce that needs only its group's size, `ring` unless the `inner` option names another.

#include "algorithms/collectives/algorithm.hpp"

namespace ddl {

// Throws InvalidArgument("inner", ...) for an unknown or non-composable algorithm.
const AlgorithmDefinition& innerAllreduce(const AlgorithmOptions& options);
// The options the inner algorithm reads (chunk-bytes), validated for a group of `members` ranks.
AlgorithmOptions innerOptions(const AlgorithmOptions& options, int members);
// The inner algorithm's translation period (Schedule::translationPeriod) over `members` ranks on `elements`
// elements, 0 where it claims none.
int innerTranslationPeriod(const AlgorithmOptions& options, int members, Elements elements, int elementBytes);
// The inner algorithm's closed form for `members` ranks on `elements` elements, over one link level.
double innerClosedFormSeconds(const AlgorithmOptions& options, int members, Elements elements, int elementBytes,
                              const CostModel& levelModel);

}  // namespace ddl
