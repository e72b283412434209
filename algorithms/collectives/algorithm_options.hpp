#pragma once
// The parameters an algorithm may take beyond the collective itself. Each is optional: an algorithm
// rejects the ones it does not use, so a mistyped command line is an error rather than silently ignored.
// Each field is declared, with its names, type, bounds and help, in option_table.cpp, which every command
// line, scenario and results file reads.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ddl {

// The most channels an algorithm runs side by side: NCCL's MAXCHANNELS (src/include/device.h, v2.23.4-1).
constexpr int kMaxChannels = 32;

struct AlgorithmOptions {
  std::optional<std::vector<int>> dims{};    // ddl: ring sizes, fastest-varying first ("4x16x4"); torus-2d: WxH
  std::optional<int> ranksPerNode{};         // hierarchical
  std::optional<std::string> inner{};        // hierarchical, torus-2d: allreduce run across nodes / columns
  std::optional<std::int64_t> chunkBytes{};  // double-binary-tree: pipeline chunk size
  std::optional<int> channels{};             // nccl-ring: rings side by side, each on a part of the buffer
};

// "4x16x4" -> {4, 16, 4}. Throws InvalidArgument("dims", ...) on anything else.
std::vector<int> parseDims(std::string_view text);
std::string formatDims(const std::vector<int>& dims);
// Throws InvalidArgument("dims", ...) unless every size is positive and the sizes multiply to `ranks`.
void checkGrid(const std::vector<int>& dims, int ranks);
// Throws InvalidArgument("chunk-bytes", ...) where a chunk size is given and is under 1 byte.
void checkChunkBytes(const AlgorithmOptions& options);

}  // namespace ddl
