#include "algorithms/collectives/option_table.hpp"

#include <algorithm>
#include <charconv>

#include "algorithms/collectives/registry.hpp"
#include "common/byte_sizes.hpp"
#include "common/invalid_argument.hpp"
#include "common/limits.hpp"

namespace ddl {
namespace {

// Typed access to one std::optional field of AlgorithmOptions, as the table's get and set.
template <auto Field, class Stored>
std::optional<OptionValue> getField(const AlgorithmOptions& options) {
  const auto& field = options.*Field;
  if (!field) return std::nullopt;
  // Built in place: GCC 12 at -O1 takes a moved-from temporary variant for uninitialised (-Wmaybe-uninitialized).
  return std::optional<OptionValue>(std::in_place, std::in_place_type<Stored>, static_cast<Stored>(*field));
}

template <auto Field, class Stored>
void setField(AlgorithmOptions& options, const OptionValue& value) {
  using Target = typename std::remove_reference_t<decltype(options.*Field)>::value_type;
  options.*Field = static_cast<Target>(std::get<Stored>(value));
}

OptionValue dimsOfTheCluster(const AlgorithmDefinition& algorithm, const ClusterShape& cluster, int gpus) {
  if (!algorithm.dimsFromTopology) throw InvalidArgument("dims", std::string(algorithm.name) + " takes no dims");
  if (cluster.grid.empty())
    throw InvalidArgument("dims", std::to_string(gpus) + " GPUs do not fill whole nodes and leaves of " + cluster.topology);
  return algorithm.dimsFromTopology(cluster.grid, gpus);
}

OptionValue gpusOfOneNode(const AlgorithmDefinition&, const ClusterShape& cluster, int gpus) {
  return static_cast<std::int64_t>(std::min(gpus, cluster.gpusPerNode));
}

// NCCL v2.23.4-1 on a node whose NICs are as fast as a GPU's PCIe link (DGX H100: 50 and 48 GB/s): the ring
// search finds one ring per NIC, entering and leaving the node through it (src/graph/search.cc), and
// ncclTopoPostset doubles the rings it found (src/graph/connect.cc), at most MAXCHANNELS: 16 on DGX H100,
// as NCCL's own log of "16 coll channels" on H100 shows (NVIDIA/nccl#1453).
OptionValue twoChannelsPerNic(const AlgorithmDefinition&, const ClusterShape& cluster, int) {
  return static_cast<std::int64_t>(std::min(kMaxChannels, 2 * std::max(1, cluster.nicsPerNode)));
}

const OptionDeclaration kOptions[] = {
    {.bit = kDims,
     .name = "dims",
     .key = "dims",
     .type = OptionType::Grid,
     .help = "the grid of ranks, fastest-varying first (ddl: 4x16x4, up to 4 sizes; torus-2d: WxH)",
     .derivedBy = "topology",
     .derivation = "GPUs per node x nodes per leaf x leaves, sizes of 1 dropped (torus-2d: the node's GPUs x the rest)",
     .derive = dimsOfTheCluster,
     .get = getField<&AlgorithmOptions::dims, std::vector<int>>,
     .set = setField<&AlgorithmOptions::dims, std::vector<int>>},
    {.bit = kRanksPerNode,
     .name = "ranks-per-node",
     .key = "ranks_per_node",
     .type = OptionType::Count,
     .minimum = 1,
     .maximum = kMaxRanks,
     .help = "ranks per node, consecutive (hierarchical reduces among them first; nccl-ring's channels enter each node at another of them)",
     .derivedBy = "node",
     .derivation = "the topology's GPUs per node, those a job uses (--gpus-per-node), at most the GPU count",
     .derive = gpusOfOneNode,
     .get = getField<&AlgorithmOptions::ranksPerNode, std::int64_t>,
     .set = setField<&AlgorithmOptions::ranksPerNode, std::int64_t>},
    {.bit = kInner,
     .name = "inner",
     .key = "inner",
     .type = OptionType::AlgorithmName,
     .help = "the allreduce run across nodes or down each column, one that needs no options of its own (default ring)",
     .get = getField<&AlgorithmOptions::inner, std::string>,
     .set = setField<&AlgorithmOptions::inner, std::string>},
    {.bit = kChunkBytes,
     .name = "chunk-bytes",
     .key = "chunk_bytes",
     .type = OptionType::Bytes,
     .minimum = 1,
     .maximum = std::int64_t{1} << 40,
     .help = "pipeline chunk size in bytes of double-binary-tree, alone or as an inner allreduce (default 512 KiB)",
     .get = getField<&AlgorithmOptions::chunkBytes, std::int64_t>,
     .set = setField<&AlgorithmOptions::chunkBytes, std::int64_t>},
    {.bit = kChannels,
     .name = "channels",
     .key = "channels",
     .type = OptionType::Count,
     .minimum = 1,
     .maximum = kMaxChannels,
     .help = "rings side by side, each over its own part of the buffer and entering each node at another GPU "
             "(NCCL's channels; default 1)",
     .derivedBy = "topology",
     .derivation = "two per NIC the node's GPUs leave it through (every cabled NIC of a full node), at most 32 (NCCL's ring "
                   "search and ncclTopoPostset)",
     .derive = twoChannelsPerNic,
     .get = getField<&AlgorithmOptions::channels, std::int64_t>,
     .set = setField<&AlgorithmOptions::channels, std::int64_t>},
};

}  // namespace

std::span<const OptionDeclaration> algorithmOptionTable() { return kOptions; }

const OptionDeclaration* findOptionDeclaration(std::string_view nameOrKey) {
  for (const OptionDeclaration& option : kOptions)
    if (option.name == nameOrKey || option.key == nameOrKey) return &option;
  return nullptr;
}

void checkOptionBounds(const OptionDeclaration& option, std::int64_t value) {
  if (value < option.minimum || value > option.maximum)
    throw InvalidArgument(std::string(option.name), "must be " + std::to_string(option.minimum) + " to " +
                                                        std::to_string(option.maximum) + ", got " + std::to_string(value));
}

OptionValue parseOptionText(const OptionDeclaration& option, const std::string& text) {
  const std::string field(option.name);
  switch (option.type) {
    case OptionType::Grid:
      try {
        return parseDims(text);
      } catch (const InvalidArgument& error) {
        throw InvalidArgument(field, error.message());
      }
    case OptionType::Count: {
      std::int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || error != std::errc() || end != text.data() + text.size())
        throw InvalidArgument(field, "'" + text + "' is not a whole number");
      checkOptionBounds(option, value);
      return value;
    }
    case OptionType::Bytes: {
      const std::int64_t value = parseByteSize(text, field);
      checkOptionBounds(option, value);
      return value;
    }
    case OptionType::AlgorithmName:
      if (text.empty()) throw InvalidArgument(field, "needs an algorithm's name");
      return text;
  }
  return text;
}

std::string formatOptionValue(const OptionValue& value) {
  if (const auto* grid = std::get_if<std::vector<int>>(&value)) return formatDims(*grid);
  if (const auto* number = std::get_if<std::int64_t>(&value)) return std::to_string(*number);
  return std::get<std::string>(value);
}

std::string algorithmsTaking(const OptionDeclaration& option) {
  std::vector<std::string_view> names;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if ((algorithm->options & option.bit) && std::find(names.begin(), names.end(), algorithm->name) == names.end())
      names.push_back(algorithm->name);
  std::string text;
  for (std::string_view name : names) text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

std::string flagsOf(const AlgorithmDefinition& algorithm) {
  std::string flags;
  for (const OptionDeclaration& option : kOptions)
    if (algorithm.options & option.bit) flags += (flags.empty() ? "--" : " --") + std::string(option.name);
  return flags.empty() ? "-" : flags;
}

}  // namespace ddl
