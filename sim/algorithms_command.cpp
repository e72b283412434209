#include "sim/algorithms_command.hpp"

#include <cstdio>
#include <memory>
#include <string>

#include "algorithms/collectives/registry.hpp"

namespace ddl {
namespace {

std::string optionsOf(const AlgorithmDefinition& algorithm) {
  std::string options;
  auto add = [&](unsigned option, const char* flag) {
    if (algorithm.options & option) options += (options.empty() ? "" : " ") + std::string(flag);
  };
  add(kDims, "--dims");
  add(kRanksPerNode, "--ranks-per-node");
  add(kInner, "--inner");
  add(kChunkBytes, "--chunk-bytes");
  return options.empty() ? "-" : options;
}

}  // namespace

void addAlgorithmsCommand(CLI::App& app, int& exitCode) {
  auto namesOnly = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("algorithms", "List the collective algorithms, their options and what they do.");
  command->add_flag("--names", *namesOnly, "Only the names, one per line");
  command->callback([namesOnly, &exitCode] {
    for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
      if (*namesOnly) {
        std::printf("%s %s\n", std::string(algorithm->name).c_str(), std::string(toString(algorithm->collective)).c_str());
        continue;
      }
      std::printf("%-20s %-15s %-38s %s\n", std::string(algorithm->name).c_str(),
                  std::string(toString(algorithm->collective)).c_str(), optionsOf(*algorithm).c_str(),
                  std::string(algorithm->summary).c_str());
    }
    exitCode = 0;
  });
}

}  // namespace ddl
