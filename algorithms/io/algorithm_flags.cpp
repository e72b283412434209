#include "algorithms/io/algorithm_flags.hpp"

#include "algorithms/collectives/registry.hpp"
#include "algorithms/schedule/invalid_argument.hpp"

namespace ddl {

void AlgorithmFlags::addTo(CLI::App* command) {
  command_ = command;
  command->add_option("--algorithm", algorithm_, "Algorithm name (ring, ddl, halving-doubling, ...)");
  command->add_option("--collective", collective_, "allreduce, reduce-scatter or all-gather")->capture_default_str();
  command->add_option("--dims", dims_, "ddl grid, fastest-varying first (4x16x4); torus-2d WxH");
  command->add_option("--ranks-per-node", ranksPerNode_, "hierarchical: ranks per node");
  command->add_option("--inner", inner_, "hierarchical, torus-2d: inner allreduce (default ring)");
  command->add_option("--chunk-bytes", chunkBytes_, "double-binary-tree: pipeline chunk size in bytes");
}

CollectiveKind AlgorithmFlags::collective() const {
  const auto kind = parseCollectiveKind(collective_);
  if (!kind) throw InvalidArgument("--collective", "'" + collective_ + "' is not allreduce, reduce-scatter or all-gather");
  return *kind;
}

const AlgorithmDefinition& AlgorithmFlags::algorithm() const {
  if (!algorithmGiven()) throw InvalidArgument("--algorithm", "required");
  return findAlgorithm(collective(), algorithm_);
}

AlgorithmOptions AlgorithmFlags::options() const {
  AlgorithmOptions options;
  if (command_->count("--dims")) options.dims = parseDims(dims_);
  if (command_->count("--ranks-per-node")) options.ranksPerNode = ranksPerNode_;
  if (command_->count("--inner")) options.inner = inner_;
  if (command_->count("--chunk-bytes")) options.chunkBytes = chunkBytes_;
  return options;
}

}  // namespace ddl
