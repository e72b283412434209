#pragma once
// Every algorithm by collective and name, as SimGrid selects its collectives from one table by a string.

#include <span>
#include <string_view>

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/schedule/schedule.hpp"

namespace ddl {

std::span<const AlgorithmDefinition* const> allAlgorithms();

// The algorithm named `name` for `kind`; throws InvalidArgument("algorithm", ...) listing the known names.
const AlgorithmDefinition& findAlgorithm(CollectiveKind kind, std::string_view name);

// InvalidArgument naming the option unless `algorithm` takes every option set in `options` and they fit
// `ranks` ranks: what makeSchedule checks of the options.
void checkOptions(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options);

// Checks spec and options (InvalidArgument naming the field) and returns the schedule.
Schedule makeSchedule(const AlgorithmDefinition& algorithm, const CollectiveSpec& spec, const AlgorithmOptions& options);

// The α-β-γ model the algorithm's closed form reads: `links` holds one cost per level, or one for all.
CostModel costModelFor(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options,
                       const std::vector<LinkCost>& links, double reduceSecondsPerByte);

}  // namespace ddl
