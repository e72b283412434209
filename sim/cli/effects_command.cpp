#include "sim/cli/effects_command.hpp"

#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "algorithms/training/iteration_effects.hpp"
#include "common/number_text.hpp"

namespace ddl {
namespace {

std::string priorShapeName(PriorShape shape) { return shape == PriorShape::Triangular ? "triangular" : "uniform"; }

// "triangular over 0 to 0.006, mode 0.002" or "uniform over 0 to 0.0282".
std::string priorText(const EffectDeclaration& effect) {
  return priorShapeName(effect.prior) + " over " + shortNumber(effect.low) + " to " + shortNumber(effect.high) +
         (effect.prior == PriorShape::Triangular ? ", mode " + shortNumber(effect.central) : "");
}

nlohmann::json effectsJson() {
  nlohmann::json effects = nlohmann::json::array();
  for (const EffectDeclaration& effect : effectTable())
    effects.push_back({{"key", effect.key},
                       {"unit", effect.unit},
                       {"maximum", effect.maximum},
                       {"central", effect.central},
                       {"low", effect.low},
                       {"high", effect.high},
                       {"raises_efficiency", effect.raisesEfficiency},
                       {"meaning", effect.meaning},
                       {"source", effect.source},
                       {"confidence", effect.confidence},
                       {"prior", {{"shape", priorShapeName(effect.prior)}, {"reason", effect.priorReason}}}});
  return {{"effects", std::move(effects)}, {"draws_per_point", kDrawsPerPoint}, {"max_iterations", kMaxIterations}};
}

void printEffectsTable() {
  std::cout << "Effects a scenario's \"effects\" may give, each a number or \"sourced\" (the central value; ddlsim --samples\n"
               "draws it from its prior). Off unless given.\n";
  for (const EffectDeclaration& effect : effectTable()) {
    std::cout << "\n" << effect.key << " [" << effect.unit << ", 0 to " << shortNumber(effect.maximum) << "]\n"
              << "  " << effect.meaning << "\n"
              << "  sourced: " << shortNumber(effect.central) << ", range " << shortNumber(effect.low) << " to "
              << shortNumber(effect.high) << (effect.raisesEfficiency ? " (a larger value raises the efficiency)" : "") << "\n"
              << "  source: " << effect.source << "\n"
              << "  confidence: " << effect.confidence << "\n"
              << "  prior: " << priorText(effect) << ": " << effect.priorReason << "\n";
  }
  std::cout << "\nAlso: gpu_time_factors (a file of GPU time factors to draw from instead of gpu_speed_spread),\n"
               "job_time_factors (a file of one machine's jobs' time factors, models/job-speed/, from which each sample\n"
               "of --samples draws how fast the job predicted runs against the job its profile was measured in), seed, and\n"
               "iterations (default: enough for about "
            << kDrawsPerPoint << " compute draws per point, 1 to " << kMaxIterations << ", where jitter is on; else 1).\n";
}

}  // namespace

void addEffectsCommand(CLI::App& app, int& exitCode) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("effects", "List the effects beyond compute and communication a scenario may turn on.");
  command->add_flag("--json", *json, "The effects as JSON");
  command->callback([json, &exitCode] {
    if (*json) {
      std::cout << effectsJson().dump(1) << "\n";
    } else {
      printEffectsTable();
    }
    exitCode = 0;
  });
}

}  // namespace ddl
