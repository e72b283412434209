#include "algorithms/collectives/algorithm_options.hpp"

#include <charconv>

#include "common/invalid_argument.hpp"

namespace ddl {

std::vector<int> parseDims(std::string_view text) {
  std::vector<int> dims;
  const std::string original(text);
  while (true) {
    const auto cut = text.find('x');
    const std::string_view part = text.substr(0, cut);
    int value = 0;
    auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || error != std::errc() || end != part.data() + part.size() || value < 1)
      throw InvalidArgument("dims", "'" + original + "' is not a list of positive sizes like 4x16x4");
    dims.push_back(value);
    if (cut == std::string_view::npos) break;
    text.remove_prefix(cut + 1);
  }
  return dims;
}

std::string formatDims(const std::vector<int>& dims) {
  std::string text;
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? "x" : "") + std::to_string(dims[i]);
  return text;
}

void checkGrid(const std::vector<int>& dims, int ranks) {
  for (int d : dims)
    if (d < 1) throw InvalidArgument("dims", "every size must be at least 1 in " + formatDims(dims));
  long long product = 1;
  for (int d : dims)
    if ((product *= d) > ranks) break;  // stays below 2^62: no overflow
  if (product != ranks)
    throw InvalidArgument("dims", formatDims(dims) + " does not multiply to " + std::to_string(ranks) + " ranks");
}

void checkChunkBytes(const AlgorithmOptions& options) {
  if (options.chunkBytes && *options.chunkBytes < 1)
    throw InvalidArgument("chunk-bytes", "must be at least 1, got " + std::to_string(*options.chunkBytes));
}

}  // namespace ddl
