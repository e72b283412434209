#pragma once
// The command-line options that choose a collective algorithm and its shape, shared by the subcommands
// that take them (schedule, collective).

#include <CLI/CLI.hpp>

#include "algorithms/collectives/algorithm.hpp"

namespace ddl {

class AlgorithmFlags {
 public:
  // Adds --algorithm, --collective, --dims, --ranks-per-node, --inner and --chunk-bytes to `command`.
  void addTo(CLI::App* command);

  bool algorithmGiven() const { return command_->count("--algorithm") > 0; }
  // The chosen algorithm; InvalidArgument naming the option if unknown.
  const AlgorithmDefinition& algorithm() const;
  CollectiveKind collective() const;
  // Only the options given on the command line are set.
  AlgorithmOptions options() const;

 private:
  CLI::App* command_ = nullptr;
  std::string algorithm_;
  std::string collective_ = "allreduce";
  std::string dims_;
  int ranksPerNode_ = 0;
  std::string inner_;
  std::int64_t chunkBytes_ = 0;
};

}  // namespace ddl
