// `ddlsim calibrate effects SCENARIO TRAIN.json... [--only KEYS] [--out FILE]`.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/io/results_json.hpp"
#include "algorithms/training/effect_calibration.hpp"
#include "common/cli_checks.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"
#include "common/output_file.hpp"
#include "scenarios/scenario.hpp"
#include "sim/cli/calibration_commands.hpp"

namespace ddl {
namespace {

struct EffectsCalibrationArguments {
  std::string scenario;
  std::vector<std::string> measured;
  std::vector<std::string> only;
  std::string out;
};

// Every point with measured effects, from every file; a file with none is bad input, and so is one measured
// on another GPU than `scenario`'s: the effects (jitter, overlap slowdown, per-collective overhead) are the
// machine's, fitted into a scenario of another machine they would be wrong. Not the model: the effects are
// the machine's whatever it trains, and analysis/validate_calibration fits them from two models at once.
std::vector<MeasuredEffects> measuredPoints(const std::vector<std::string>& files, const Scenario& scenario) {
  std::vector<MeasuredEffects> points;
  for (const std::string& file : files) {
    const ScalingResults results = resultsFromJson(readJsonFile(file), file);
    if (!results.gpu.empty() && results.gpu != scenario.gpu)
      throw InvalidArgument(file + ": $.gpu", "'" + results.gpu + "', but " + scenario.path + " is of GPU '" + scenario.gpu +
                                                  "': these measurements are of another machine");
    std::size_t found = 0;
    for (const ScalingPoint& point : results.points)
      if (point.measuredEffects) {
        points.push_back(*point.measuredEffects);
        ++found;
      }
    if (found == 0) throw InvalidArgument(file + ": $.points", "no point has measured_effects: ddlrun train writes them");
  }
  return points;
}

int runEffectsCalibration(const EffectsCalibrationArguments& args) {
  nlohmann::json scenario = readJsonFile(args.scenario);
  const Scenario loaded = loadScenario(args.scenario);  // a bad scenario fails before any fitting
  requireDistinctOutputs({{"--out", args.out}});  // nor --out onto it or a measurement (read at parsing)
  const std::vector<MeasuredEffects> points = measuredPoints(args.measured, loaded);
  const std::vector<FittedEffect> fits = fitEffects(points);
  std::vector<std::string> keys = args.only;
  if (keys.empty())
    for (const char* key : kFittedEffectKeys) keys.emplace_back(key);
  // Every requested parameter identified, or nothing written.
  for (const FittedEffect& fit : fits) {
    const bool wanted = std::find(keys.begin(), keys.end(), fit.key) != keys.end();
    if (wanted && !fit.value)
      throw InvalidArgument("calibrate effects: " + fit.key,
                            "the measurements cannot identify it: " + fit.why + " (leave it out with --only)");
  }

  nlohmann::json& effects = scenario["effects"];
  if (!effects.is_object()) effects = nlohmann::json::object();
  std::string fitted;
  std::vector<const FittedEffect*> printed;
  for (const FittedEffect& fit : fits) {
    if (std::find(keys.begin(), keys.end(), fit.key) == keys.end()) continue;
    // The simulator's effects are never negative; a noisy estimate below zero is none.
    effects[fit.key] = std::max(0.0, *fit.value);
    fitted += (fitted.empty() ? "" : ", ") + fit.key;
    printed.push_back(&fit);
  }
  // A fitted spread replaces a fleet's factors: the scenario may give one or the other.
  if (effects.contains("gpu_speed_spread")) effects.erase("gpu_time_factors");
  const std::string files = measuredFilesListed(args.measured);
  const std::string source = "ddlsim calibrate effects: " + fitted + " fitted from " + files + " (measured)";
  effects["source"] = source;
  // The scenario's own account of its effects is no longer the whole story.
  if (scenario.contains("sources") && scenario["sources"].is_object() && scenario["sources"].contains("effects") &&
      scenario["sources"]["effects"].is_string())
    scenario["sources"]["effects"] = source + "; the others as before: " + scenario["sources"]["effects"].get<std::string>();
  // What would be written loads (from where it would be written), before anything is printed: a fitted
  // value outside an effect's range is bad input, with no partial output.
  scenarioFromJson(scenario, args.out.empty() ? args.scenario : args.out);
  std::printf("effects fitted from %zu measured point(s) of %zu file(s)\n", points.size(), args.measured.size());
  std::printf("%-22s %14s %14s  %-8s %s\n", "effect", "fitted", "residual", "samples", "residual is");
  for (const FittedEffect* fit : printed)
    std::printf("%-22s %14.6g %14.3g  %-8d %s\n", fit->key.c_str(), *fit->value, fit->residual, fit->samples,
                fit->residualMeaning.c_str());
  if (!args.out.empty()) {
    writeOutput(args.out, [&](std::ostream& out) { out << scenario.dump(1) << "\n"; });
    std::printf("wrote %s\n", args.out.c_str());
  }
  return 0;
}

}  // namespace

void addEffectsCalibration(CLI::App& calibrate, int& exitCode) {
  auto args = std::make_shared<EffectsCalibrationArguments>();
  CLI::App* command = calibrate.add_subcommand(
      "effects", "Fit a scenario's effects (jitter, spread, overlap slowdown, allreduce overhead) from ddlrun train results.");
  command->add_option("scenario", args->scenario, "The scenario to calibrate")->required()->check(readableFile());
  command->add_option("measured", args->measured, "ddlrun train --json results (one or more)")->required()->check(readableFile());
  std::vector<std::string> names;
  for (const char* key : kFittedEffectKeys) names.emplace_back(key);
  command->add_option("--only", args->only, "Fit only these effects (default: all four)")
      ->delimiter(',')
      ->check(CLI::IsMember(names));
  command->add_option("--out", args->out, "Write the calibrated scenario here (default: only print the fit)")->check(writableFile());
  command->callback([args, &exitCode] { exitCode = runEffectsCalibration(*args); });
}

}  // namespace ddl
