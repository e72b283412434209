#pragma once
// Every option an algorithm may take, declared once: its names on the command line and in scenario and
// results files, its type and bounds, what it means, and how a scenario derives it from the cluster.
// AlgorithmFlags (ddlsim schedule and collective, ddlrun bench), the scenario reader, the results files,
// `ddlsim algorithms` and makeSchedule's check that an algorithm takes what it is given all read this
// table, so a new option is a field of AlgorithmOptions, a line in option_table.cpp, and the algorithm
// that reads it (and declares it in its AlgorithmDefinition::options).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "algorithms/collectives/algorithm.hpp"

namespace ddl {

// A grid, a number, or a name.
using OptionValue = std::variant<std::vector<int>, std::int64_t, std::string>;

enum class OptionType {
  Grid,           // sizes, fastest-varying first: "4x16x4" on the command line and in scenarios, [4, 16, 4] in results
  Count,          // an integer within the declared bounds
  Bytes,          // an integer within the declared bounds; K, M, G suffixes on the command line
  AlgorithmName,  // another algorithm's name, checked by the algorithm that takes it
};

// What a scenario's derivation sees of the cluster at one GPU count.
struct ClusterShape {
  std::string topology;   // its name, for messages
  std::vector<int> grid;  // GPUs per node x nodes per leaf x leaves, sizes of 1 dropped; empty where the GPUs
                          // do not fill whole nodes and leaves
  int gpusPerNode = 1;
  int nicsPerNode = 1;  // that the node's GPUs leave it through (NodeRoutes::nicsInUse): the topology's
                        // nics_used, fewer where a job uses some of a node's GPUs
};

struct OptionDeclaration {
  unsigned bit;           // in AlgorithmDefinition::options
  std::string_view name;  // "chunk-bytes": the flag without its dashes, and the field its errors name
  std::string_view key;   // "chunk_bytes": in scenario and results files
  OptionType type;
  std::int64_t minimum = 0;  // Count and Bytes
  std::int64_t maximum = 0;
  std::string_view help;  // what it means; help texts add which algorithms take it
  // The scenario value that stands for "derive it from the cluster" ("topology"), empty if there is none,
  // what it derives, and how: InvalidArgument(name, ...) where it cannot at this GPU count.
  std::string_view derivedBy = {};
  std::string_view derivation = {};
  OptionValue (*derive)(const AlgorithmDefinition& algorithm, const ClusterShape& cluster, int gpus) = nullptr;
  // The field of AlgorithmOptions it is.
  std::optional<OptionValue> (*get)(const AlgorithmOptions& options) = nullptr;
  void (*set)(AlgorithmOptions& options, const OptionValue& value) = nullptr;
};

std::span<const OptionDeclaration> algorithmOptionTable();
// By name ("chunk-bytes") or key ("chunk_bytes"); null if there is none.
const OptionDeclaration* findOptionDeclaration(std::string_view nameOrKey);

// A command-line value of `option` ("4x16x4", "512K", "ring"); InvalidArgument(option.name, ...).
OptionValue parseOptionText(const OptionDeclaration& option, const std::string& text);
// InvalidArgument(option.name, ...) unless a Count or Bytes value lies within the declared bounds.
void checkOptionBounds(const OptionDeclaration& option, std::int64_t value);
// "4x16x4", "524288", "ring".
std::string formatOptionValue(const OptionValue& value);
// The algorithms (of any collective) that take `option`: "ddl, torus-2d".
std::string algorithmsTaking(const OptionDeclaration& option);
// "--dims --inner", or "-" for an algorithm that takes none.
std::string flagsOf(const AlgorithmDefinition& algorithm);

}  // namespace ddl
