#include "algorithms/io/algorithm_flags.hpp"

#include "algorithms/collectives/registry.hpp"
#include "common/nearest_name.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

std::string flagFor(const std::string& field, const std::string& ranksFlag) {
  for (const char* option : {"algorithm", "dims", "ranks-per-node", "inner", "chunk-bytes", "element-bytes"})
    if (field == option) return "--" + field;
  if (field == "ranks") return ranksFlag;
  return field;
}

void AlgorithmFlags::addTo(CLI::App* command) {
  command_ = command;
  command->add_option("--algorithm", algorithm_, "Algorithm name (ring, ddl, halving-doubling, ...)");
  command->add_option("--collective", collective_, "allreduce, reduce-scatter or all-gather")->capture_default_str();
  command->add_option("--dims", dims_, "ddl grid, fastest-varying first (4x16x4); torus-2d WxH");
  command->add_option("--ranks-per-node", ranksPerNode_, "hierarchical: ranks per node")->check(CLI::Range(1, kMaxRanks));
  command->add_option("--inner", inner_, "hierarchical, torus-2d: inner allreduce (default ring)");
  command->add_option("--chunk-bytes", chunkBytes_, "double-binary-tree: pipeline chunk size in bytes")
      ->check(CLI::Range(std::int64_t{1}, kMaxBufferBytes));
}

CollectiveKind AlgorithmFlags::collective() const {
  const auto kind = parseCollectiveKind(collective_);
  if (!kind) {
    constexpr std::string_view kinds[] = {"allreduce", "reduce-scatter", "all-gather"};
    throw InvalidArgument("--collective", "'" + collective_ + "' is not allreduce, reduce-scatter or all-gather" +
                                              didYouMean(collective_, kinds));
  }
  return *kind;
}

const AlgorithmDefinition& AlgorithmFlags::algorithm() const {
  if (!algorithmGiven()) throw InvalidArgument("--algorithm", "required");
  return withFlagNames("--ranks", [&]() -> const AlgorithmDefinition& { return findAlgorithm(collective(), algorithm_); });
}

AlgorithmOptions AlgorithmFlags::options() const {
  return withFlagNames("--ranks", [&] {
    AlgorithmOptions options;
    if (command_->count("--dims")) options.dims = parseDims(dims_);
    if (command_->count("--ranks-per-node")) options.ranksPerNode = ranksPerNode_;
    if (command_->count("--inner")) options.inner = inner_;
    if (command_->count("--chunk-bytes")) options.chunkBytes = chunkBytes_;
    return options;
  });
}

Schedule AlgorithmFlags::schedule(const CollectiveSpec& spec, const std::string& ranksFlag) const {
  const AlgorithmDefinition& chosen = algorithm();
  const AlgorithmOptions chosenOptions = options();
  return withFlagNames(ranksFlag, [&] { return makeSchedule(chosen, spec, chosenOptions); });
}

}  // namespace ddl
