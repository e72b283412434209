#pragma once
// What the agreement tests of the two engines run: every algorithm of every collective, with the
// parameters each takes, shaped for a rank count and a topology's node.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "topologies/topology.hpp"

namespace ddl::testing {

struct EngineCase {
  const AlgorithmDefinition* algorithm;
  AlgorithmOptions options;
  std::string label() const { return algorithm->description(options); }
};

// Every algorithm at `ranks` on nodes of `gpusPerNode`: those without options once; ddl on two grids
// (node x rest, and node x rest split in two where it divides), hierarchical with each inner allreduce,
// torus-2d with a ring inside, the double binary tree whole and pipelined in chunks of a sixteenth.
inline std::vector<EngineCase> engineCases(int ranks, int gpusPerNode, std::int64_t bytes) {
  std::vector<EngineCase> cases;
  const int node = ranks % gpusPerNode == 0 && gpusPerNode < ranks ? gpusPerNode : 2;
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    const std::string name(algorithm->name);
    if (algorithm->options == kNoOptions) {
      cases.push_back({algorithm, {}});
    } else if (name == "ddl") {
      cases.push_back({algorithm, {.dims = std::vector<int>{node, ranks / node}}});
      if ((ranks / node) % 2 == 0 && ranks / node > 2) cases.push_back({algorithm, {.dims = std::vector<int>{node, ranks / node / 2, 2}}});
    } else if (name == "hierarchical") {
      for (const char* inner : {"ring", "halving-doubling"}) cases.push_back({algorithm, {.ranksPerNode = node, .inner = inner}});
    } else if (name == "torus-2d") {
      cases.push_back({algorithm, {.dims = std::vector<int>{node, ranks / node}, .inner = "ring"}});
    } else if (name == "double-binary-tree") {
      cases.push_back({algorithm, {}});
      cases.push_back({algorithm, {.chunkBytes = bytes / 16}});
    }
  }
  return cases;
}

// The topologies shipped under topologies/, by name: every one there, so that a new one is tested too.
inline std::vector<std::string> shippedTopologies() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DDLSCALE_SOURCE_DIR) + "/topologies"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ddl::testing
