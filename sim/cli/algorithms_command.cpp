#include "sim/cli/algorithms_command.hpp"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/option_table.hpp"
#include "algorithms/collectives/registry.hpp"

namespace ddl {
namespace {

const char* typeName(OptionType type) {
  switch (type) {
    case OptionType::Grid: return "grid";
    case OptionType::Count: return "count";
    case OptionType::Bytes: return "bytes";
    case OptionType::AlgorithmName: return "algorithm";
  }
  return "unknown";
}

// The registry as data, for tools and for the schema tests: every algorithm with the options it takes, and
// every option with its names, type, bounds and scenario derivation.
nlohmann::json registryJson() {
  nlohmann::json algorithms = nlohmann::json::array();
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    nlohmann::json options = nlohmann::json::array();
    for (const OptionDeclaration& option : algorithmOptionTable())
      if (algorithm->options & option.bit) options.push_back(option.key);
    algorithms.push_back({{"name", algorithm->name},
                          {"collective", toString(algorithm->collective)},
                          {"summary", algorithm->summary},
                          {"composable", algorithm->composable},
                          // Runs on a switch that reduces (NVLS): not in ddlrun or libddlscale.
                          {"reduces_in_switch", algorithm->reducesInSwitch()},
                          {"options", std::move(options)}});
  }
  nlohmann::json options = nlohmann::json::array();
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    nlohmann::json entry = {{"key", option.key}, {"flag", "--" + std::string(option.name)},
                            {"type", typeName(option.type)}, {"help", option.help}};
    if (option.type == OptionType::Count || option.type == OptionType::Bytes) {
      entry["minimum"] = option.minimum;
      entry["maximum"] = option.maximum;
    }
    if (!option.derivedBy.empty()) entry["derived_by"] = {{"value", option.derivedBy}, {"means", option.derivation}};
    options.push_back(std::move(entry));
  }
  return {{"algorithms", std::move(algorithms)}, {"options", std::move(options)}};
}

void printAlgorithmTable() {
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    std::printf("%-20s %-15s %-38s %s\n", std::string(algorithm->name).c_str(),
                std::string(toString(algorithm->collective)).c_str(), flagsOf(*algorithm).c_str(),
                std::string(algorithm->summary).c_str());
  std::printf("\noptions (scenario key in brackets; a scenario may also derive those marked = from the cluster):\n");
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    std::printf("  --%-16s [%s] %s; taken by %s\n", std::string(option.name).c_str(), std::string(option.key).c_str(),
                std::string(option.help).c_str(), algorithmsTaking(option).c_str());
    if (!option.derivedBy.empty())
      std::printf("  %-18s = \"%s\": %s\n", "", std::string(option.derivedBy).c_str(), std::string(option.derivation).c_str());
  }
}

}  // namespace

void addAlgorithmsCommand(CLI::App& app, int& exitCode) {
  struct Flags {
    bool namesOnly = false;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* command = app.add_subcommand("algorithms", "List the collective algorithms, their options and what they do.");
  CLI::Option* names = command->add_flag("--names", flags->namesOnly, "Only the names and collectives, one per line");
  command->add_flag("--json", flags->json, "The algorithms and their options as JSON")->excludes(names);
  command->callback([flags, &exitCode] {
    if (flags->json) {
      std::cout << registryJson().dump(1) << "\n";
    } else if (flags->namesOnly) {
      for (const AlgorithmDefinition* algorithm : allAlgorithms())
        std::printf("%s %s\n", std::string(algorithm->name).c_str(), std::string(toString(algorithm->collective)).c_str());
    } else {
      printAlgorithmTable();
    }
    exitCode = 0;
  });
}

}  // namespace ddl
