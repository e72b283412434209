#include "algorithms/tuning/tuning_candidates.hpp"

#include <algorithm>
#include <functional>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/tuning/nccl_tuning_model.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

void appendGrids(int remaining, std::size_t sizesLeft, std::vector<int>& prefix, std::vector<std::vector<int>>& grids) {
  if (sizesLeft == 1) {
    if (remaining >= 2) {
      prefix.push_back(remaining);
      grids.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (int size = 2; size <= remaining / 2; ++size) {
    if (remaining % size != 0) continue;
    prefix.push_back(size);
    appendGrids(remaining / size, sizesLeft - 1, prefix, grids);
    prefix.pop_back();
  }
}

std::vector<const AlgorithmDefinition*> composableAllreduces() {
  std::vector<const AlgorithmDefinition*> inner;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if (algorithm->collective == CollectiveKind::Allreduce && algorithm->composable) inner.push_back(algorithm);
  return inner;
}

// Every configuration of `algorithm` on `ranks` ranks, before validation. (Options are set field by field:
// GCC 12 takes designated initialisers of AlgorithmOptions for uninitialised, -Wmaybe-uninitialized.)
std::vector<AlgorithmOptions> optionsToTry(const AlgorithmDefinition& algorithm, int ranks, const ClusterShape& cluster) {
  std::vector<AlgorithmOptions> tried;
  const auto withInners = [&](const AlgorithmOptions& outer) {
    for (const AlgorithmDefinition* inner : composableAllreduces()) {
      tried.push_back(outer);
      tried.back().inner = std::string(inner->name);
    }
  };
  AlgorithmOptions options;
  if (algorithm.options == kNoOptions) {
    tried.push_back(options);
  } else if (algorithm.reducesInSwitch()) {  // nccl-nvls, nccl-nvls-tree: NCCL's NVLS channels and half as many
    if (algorithm.options & kRanksPerNode) options.ranksPerNode = std::min(ranks, cluster.gpusPerNode);
    for (int channels : {kNcclNvlsChannels / 2, kNcclNvlsChannels}) {
      options.channels = channels;
      tried.push_back(options);
    }
  } else if (algorithm.options == kChunkBytes) {
    for (std::int64_t chunk : kTunedChunkBytes) {
      options.chunkBytes = chunk;
      tried.push_back(options);
    }
  } else if (algorithm.options == kDims) {  // ddl
    std::vector<std::vector<int>> grids = orderedGrids(ranks, 3);
    if (!cluster.grid.empty() && algorithm.dimsFromTopology) {
      std::vector<int> own = algorithm.dimsFromTopology(cluster.grid, ranks);
      if (std::find(grids.begin(), grids.end(), own) == grids.end()) grids.push_back(std::move(own));
    }
    for (std::vector<int>& grid : grids) {
      options.dims = std::move(grid);
      tried.push_back(options);
    }
  } else if (algorithm.options & kDims) {  // torus-2d
    for (std::vector<int>& grid : orderedGrids(ranks, 2)) {
      options.dims = std::move(grid);
      withInners(options);
    }
  } else if (algorithm.options & kChannels) {  // nccl-ring, nccl-tree: the node's ranks, one and two channels per NIC
    options.ranksPerNode = std::min(ranks, cluster.gpusPerNode);
    const int perNic = std::max(1, ranks > cluster.gpusPerNode ? cluster.nicsPerNode : 1);
    for (int channels : {perNic, 2 * perNic}) {
      options.channels = std::min(channels, kMaxChannels);
      tried.push_back(options);
    }
  } else if (algorithm.options & kRanksPerNode) {  // hierarchical
    for (int perNode = 2; perNode <= ranks / 2; ++perNode) {
      if (ranks % perNode != 0) continue;
      options.ranksPerNode = perNode;
      withInners(options);
    }
  }
  return tried;
}

bool fits(const AlgorithmDefinition& algorithm, int ranks, const AlgorithmOptions& options) {
  try {
    checkOptions(algorithm, ranks, options);
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

}  // namespace

std::vector<std::vector<int>> orderedGrids(int ranks, std::size_t maxSizes) {
  std::vector<std::vector<int>> grids;
  std::vector<int> prefix;
  for (std::size_t sizes = 2; sizes <= maxSizes; ++sizes) appendGrids(ranks, sizes, prefix, grids);
  return grids;
}

std::vector<AlgorithmChoice> tuningCandidates(CollectiveKind kind, int ranks, const ClusterShape& cluster,
                                              const std::vector<std::string>& only, bool switchesReduce) {
  for (const std::string& name : only) {
    const AlgorithmDefinition* named = nullptr;
    try {
      named = &findAlgorithm(kind, name);
    } catch (const InvalidArgument& error) {
      throw InvalidArgument("--algorithms", error.message());
    }
    if (named->reducesInSwitch() && !switchesReduce)
      throw InvalidArgument("--algorithms", name + " reduces in an NVSwitch with multicast (NVLS), and " + cluster.topology +
                                                "'s node names none (its topology file's node.multicast_switch)");
  }
  std::vector<AlgorithmChoice> candidates;
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    if (algorithm->collective != kind) continue;
    if (algorithm->reducesInSwitch() && !switchesReduce) continue;
    if (!only.empty() && std::find(only.begin(), only.end(), algorithm->name) == only.end()) continue;
    for (AlgorithmOptions& options : optionsToTry(*algorithm, ranks, cluster))
      if (fits(*algorithm, ranks, options)) candidates.push_back({algorithm, std::move(options)});
  }
  return candidates;
}

}  // namespace ddl
