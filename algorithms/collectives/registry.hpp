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

// InvalidArgument(field, ...) where `algorithm` reduces in a switch (AlgorithmDefinition::switches) and
// `where` (", which ddlrun's transports have no part for") cannot place one: only ddlsim collective,
// schedule, tune and scenarios (training iterations) run such algorithms yet.
void refuseSwitchReduction(const AlgorithmDefinition& algorithm, const std::string& field, std::string_view where);

// InvalidArgument naming the option unless `algorithm` takes every option set in `options` and they fit
// `ranks` ranks: what makeSchedule checks of the options.
void checkOptions(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options);

// Checks spec and options (InvalidArgument naming the field) and returns the schedule.
Schedule makeSchedule(const AlgorithmDefinition& algorithm, const CollectiveSpec& spec, const AlgorithmOptions& options);

// How a grouped schedule partitions the ranks into groups of `groupRanks` consecutive ranks (nodes).
enum class RankGroups {
  WithinGroups,  // each group runs the collective on the whole buffer
  AcrossGroups,  // the ranks of one index in every group run it on that index's block of the buffer
                 // (blockOf(buffer, groupRanks, index)): FSDP HYBRID_SHARD's allreduce of a node's shard
};
// `algorithm` run at once by every group of such a partition of spec.ranks ranks, as one schedule over all
// of them (spec.kind is the algorithm's, spec.ranks all the ranks). Its claimed translation period is the
// groups' size within groups, and across them the groups' size times the algorithm's claim for one group
// (none where it makes none). InvalidArgument as makeSchedule, and where groupRanks does not divide the ranks.
Schedule makeGroupedSchedule(const AlgorithmDefinition& algorithm, const CollectiveSpec& spec, int groupRanks, RankGroups groups,
                             const AlgorithmOptions& options);

// The α-β-γ model the algorithm's closed form reads: `links` holds one cost per level, or one for all.
CostModel costModelFor(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options,
                       const std::vector<LinkCost>& links, double reduceSecondsPerByte);

}  // namespace ddl
