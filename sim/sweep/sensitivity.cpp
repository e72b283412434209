#include "sim/sweep/sensitivity.hpp"

#include <algorithm>

#include "common/invalid_argument.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {
namespace {

constexpr const char* kSeeds = "seeds of the per-rank draws";
constexpr const char* kJob = "job speed (job_time_factors)";
constexpr const char* kAll = "all together";

// The settings that vary `input` alone (kAll: every input, as --samples does).
SweepSettings varying(const Scenario& scenario, const std::string& input, int samples, double computeScale) {
  SweepSettings settings{computeScale, samples};
  if (input == kSeeds) {
    settings.onlySeeds = true;
  } else if (input == kJob) {
    settings.onlyJob = true;
  } else if (input != kAll) {
    settings.onlyEffect = findEffectDeclaration(input);
    if (!settings.onlyEffect || !scenario.sourced(*settings.onlyEffect))
      throw InvalidArgument("--sensitivity", input + " is no sourced effect of " + scenario.path);
  }
  return settings;
}

}  // namespace

std::vector<std::string> uncertainInputs(const Scenario& scenario) {
  std::vector<std::string> inputs;
  for (const EffectDeclaration* effect : scenario.sourcedEffects) inputs.emplace_back(effect->key);
  if (scenario.effects.drawsPerRank()) inputs.emplace_back(kSeeds);
  if (!scenario.effects.jobTimeFactors.empty()) inputs.emplace_back(kJob);
  if (inputs.empty())
    throw InvalidArgument("--sensitivity", scenario.path + " has no uncertain input: no effect is \"sourced\" ($.effects), "
                                           "none is drawn per rank and no job_time_factors are given");
  return inputs;
}

Sensitivity sensitivityOf(const Scenario& scenario, const Engine& engine, int gpus, int samples, double computeScale, int jobs) {
  std::vector<std::string> inputs = uncertainInputs(scenario);
  inputs.emplace_back(kAll);
  Scenario point = scenario;
  point.gpuCounts = {gpus};
  Sensitivity sensitivity{scenario.name, samples, {}};
  for (const std::string& input : inputs) {
    const ScenarioSweep sweep(point, engine, varying(point, input, samples, computeScale));
    const int fit = jobsThatFit(jobs, sweep.requireMemory());
    std::vector<std::size_t> every(sweep.simulations());
    for (std::size_t s = 0; s < every.size(); ++s) every[s] = s;
    const ScalingResults results = sweep.results(simulateSweep(sweep, every, fit));
    if (sensitivity.points.empty())
      for (const ScalingPoint& result : results.points)
        sensitivity.points.push_back({result.label, result.gpus, result.efficiency(), {}});
    for (std::size_t p = 0; p < results.points.size(); ++p)
      sensitivity.points.at(p).swings.push_back({input, results.points[p].interval->efficiency});
  }
  // The widest swing first; all of them together stays last.
  for (PointSensitivity& entry : sensitivity.points)
    std::stable_sort(entry.swings.begin(), entry.swings.end() - 1, [](const InputSwing& a, const InputSwing& b) {
      return a.efficiency.p95 - a.efficiency.p05 > b.efficiency.p95 - b.efficiency.p05;
    });
  return sensitivity;
}

}  // namespace ddl
