#pragma once
// What every collective algorithm provides: one definition per algorithm file, listed in the registry.

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/cost/cost_model.hpp"
#include "algorithms/schedule/collective.hpp"
#include "algorithms/schedule/group.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {

// The options an algorithm reads; any other option given to it is an error.
enum OptionSet : unsigned {
  kNoOptions = 0,
  kDims = 1u << 0,
  kRanksPerNode = 1u << 1,
  kInner = 1u << 2,
  kChunkBytes = 1u << 3,
  kChannels = 1u << 4,
};

// For algorithms that run on any number of ranks and distinguish no link levels.
void acceptsAnyRankCount(int ranks, const AlgorithmOptions&);
std::vector<int> flatCostLevels(int ranks, const AlgorithmOptions&);

struct AlgorithmDefinition {
  std::string_view name;
  CollectiveKind collective;
  std::string_view summary;
  unsigned options = kNoOptions;
  // Runs on any group from its size alone, so it may be the inner allreduce of hierarchical or torus-2d.
  bool composable = false;
  // For an algorithm that reduces in NVSwitches, participants after the ranks (CollectiveSpec::switches), one
  // per node whose topology names that switch: how many its schedule for `ranks` has (options validated).
  // Null for every other algorithm.
  int (*switches)(int ranks, const AlgorithmOptions& options) = nullptr;
  // Under an NCCL protocol, its hops cost NCCL's tree's latencies, not its ring's (nccl_protocol.hpp).
  bool costedAsNcclTree = false;

  // Throws InvalidArgument naming the option if `options` do not fit `ranks` ranks.
  void (*validate)(int ranks, const AlgorithmOptions& options) = acceptsAnyRankCount;
  // A short name of this configuration, "ddl 4x16x4"; null for algorithms that have only their name.
  std::string (*describe)(const AlgorithmOptions& options) = nullptr;
  // Appends the calling rank's steps of the collective over `group` on `range` (nothing if the rank is
  // not in the group). Options are validated for group.size.
  void (*append)(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options,
                 int elementBytes);
  // The dims this algorithm takes on a cluster whose levels are `grid` (GPUs per node x nodes per leaf x
  // leaves, fastest first) for `ranks` ranks: what a scenario's "dims": "topology" means for it. Null for
  // algorithms that take no dims.
  std::vector<int> (*dimsFromTopology)(const std::vector<int>& grid, int ranks) = nullptr;
  // The link levels (CostModel level sizes) the closed form distinguishes: {ranks} for a flat algorithm.
  std::vector<int> (*costLevels)(int ranks, const AlgorithmOptions& options) = flatCostLevels;
  // The exact time of the generated schedule under `model` (whose levels are costLevels(...)), with every
  // message charged α + bytes·β, every reduction bytes·γ, and no contention; see algorithms/README.md.
  double (*closedFormSeconds)(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model);
  // The schedule's translation period for `spec` (Schedule::translationPeriod), or 0 where it claims none.
  // Null: none at any size.
  int (*translationPeriod)(const CollectiveSpec& spec, const AlgorithmOptions& options) = nullptr;

  bool reducesInSwitch() const { return switches != nullptr; }
  std::string description(const AlgorithmOptions& options) const {
    return describe ? describe(options) : std::string(name);
  }
};

}  // namespace ddl
