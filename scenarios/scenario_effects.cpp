#include "scenarios/scenario_effects.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/data_files.hpp"
#include "common/input_file.hpp"
#include "common/number_text.hpp"
#include "common/statistics.hpp"

namespace ddl {
namespace {

// A machine's jobs' file gives each job's step beside the factors, which must be those steps over their
// median, sorted (as analysis/measure_job_speed writes them, to 4 decimals): a file edited by hand in one
// place and not the other is refused.
void requireFactorsOfTheSteps(const JsonReader& root, const nlohmann::json& json, const std::vector<double>& factors) {
  const JsonReader times = root.at("iteration_s");
  const auto& list = times.array(root.member(json, "iteration_s"));
  if (list.size() != factors.size()) times.fail("the file has " + std::to_string(factors.size()) + " time factors");
  std::vector<double> steps;
  for (std::size_t i = 0; i < list.size(); ++i) steps.push_back(times.at(i).number(list[i], 1e-9, 1e6));
  const double middle = median(steps);
  std::sort(steps.begin(), steps.end());
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (std::abs(steps[i] / middle - factors[i]) > 1e-3)
      root.at("time_factors").at(i).fail("is not the steps (iteration_s) over their median, sorted: " + shortNumber(steps[i] / middle));
}

// An empirical distribution of time factors, {"time_factors": [...], COUNT: n, ...}: a fleet's GPUs
// (models/gpu-speed/*.json, COUNT "gpus") or a machine's jobs (models/job-speed/*.json, COUNT "jobs", with
// each job's step, "iteration_s", beside).
std::vector<double> readTimeFactors(const std::string& path, const std::string& count) {
  const nlohmann::json json = readJsonFile(path);
  const JsonReader root(path);
  root.object(json);
  const bool jobs = count == "jobs";
  if (jobs) {
    root.allowOnly(json, {"name", count, "time_factors", "iteration_s"});
  } else {
    root.allowOnly(json, {"name", count, "time_factors"});
  }
  const JsonReader reader = root.at("time_factors");
  const auto& list = reader.array(root.member(json, "time_factors"));
  if (list.empty()) reader.fail("give at least one factor");
  std::vector<double> factors;
  for (std::size_t i = 0; i < list.size(); ++i) factors.push_back(reader.at(i).number(list[i], 0.01, 100));
  if (root.has(json, "name")) root.stringAt(json, "name");
  if (root.has(json, count) && root.integerAt(json, count, 1, 1LL << 30) != static_cast<std::int64_t>(factors.size()))
    root.at(count).fail("the file has " + std::to_string(factors.size()) + " time factors");
  if (jobs && root.has(json, "iteration_s")) requireFactorsOfTheSteps(root, json, factors);
  return factors;
}

// The factors file $.effects.KEY names, found under `folder`; its path goes to `file`.
std::vector<double> readFactorsNamed(const JsonReader& reader, const nlohmann::json& effects, const std::string& key,
                                     const char* folder, const char* count, const Scenario& scenario, std::string& file) {
  file = findDataFile(folder, reader.stringAt(effects, key), scenario.path, scenario.path + ": $.effects." + key);
  return readTimeFactors(file, count);
}

}  // namespace

void readScenarioEffects(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  if (!root.has(json, "effects")) return;
  const JsonReader reader = root.at("effects");
  const auto& effects = reader.object(json["effects"]);
  std::vector<std::string_view> keys{"gpu_time_factors", "job_time_factors", "seed", "iterations"};
  for (const EffectDeclaration& declaration : effectTable()) keys.push_back(declaration.key);
  reader.allowOnly(effects, keys);
  for (const EffectDeclaration& declaration : effectTable()) {
    const std::string key(declaration.key);
    if (!reader.has(effects, key)) continue;
    const auto& value = effects[key];
    if (value.is_string()) {
      if (value != "sourced") reader.at(key).fail("expected a number, 0 to " + shortNumber(declaration.maximum) + ", or \"sourced\"");
      scenario.effects.*declaration.field = declaration.central;
      scenario.sourcedEffects.push_back(&declaration);
    } else {
      scenario.effects.*declaration.field = reader.at(key).number(value, 0, declaration.maximum);
    }
  }
  IterationEffects& chosen = scenario.effects;
  if (reader.has(effects, "gpu_time_factors")) {
    if (reader.has(effects, "gpu_speed_spread"))
      reader.at("gpu_time_factors").fail("give either gpu_speed_spread or gpu_time_factors, not both");
    chosen.gpuTimeFactors = readFactorsNamed(reader, effects, "gpu_time_factors", kGpuTimeFactorsFolder, "gpus", scenario,
                                             chosen.gpuTimeFactorsFile);
  }
  if (reader.has(effects, "job_time_factors"))
    chosen.jobTimeFactors = readFactorsNamed(reader, effects, "job_time_factors", kJobTimeFactorsFolder, "jobs", scenario,
                                             chosen.jobTimeFactorsFile);
  if (reader.has(effects, "seed")) chosen.seed = static_cast<std::uint64_t>(reader.integerAt(effects, "seed", 0, 1LL << 53));
  if (reader.has(effects, "iterations")) chosen.iterations = static_cast<int>(reader.integerAt(effects, "iterations", 1, 1000));
}

void useJobTimeFactors(Scenario& scenario, const std::string& nameOrPath, const std::string& field) {
  const std::string here = (std::filesystem::current_path() / field).string();
  scenario.effects.jobTimeFactorsFile = findDataFile(kJobTimeFactorsFolder, nameOrPath, here, field);
  scenario.effects.jobTimeFactors = readTimeFactors(scenario.effects.jobTimeFactorsFile, "jobs");
}

}  // namespace ddl
