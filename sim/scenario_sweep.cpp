#include "sim/scenario_sweep.hpp"

#include "algorithms/collectives/registry.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>

#include "common/invalid_argument.hpp"

#include "sim/fresh_process.hpp"
#include "sim/iteration_simulation.hpp"
#include "sim/simulation_error.hpp"
#include "sim/simulation_memory.hpp"
#include "topologies/platform_without_latency.hpp"

namespace ddl {

void requireScenarioMemory(const Scenario& scenario, double computeScale) {
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  // A point holds one bucket's programs at a time; the bucket with the most elements has the most steps.
  Elements largest = 0;
  for (const GradientBucket& bucket : plan.buckets()) largest = std::max(largest, bucket.elements.count);
  const std::vector<int> counts = scenario.simulatedGpuCounts();  // the baseline's too
  for (const ScenarioAlgorithm& choice : scenario.algorithms) {
    const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const int gpus = counts[i];
      const AlgorithmOptions options = scenario.optionsFor(choice, gpus);
      try {
        const Schedule schedule = makeSchedule(algorithm, {CollectiveKind::Allreduce, gpus, largest, plan.workload().elementBytes}, options);
        requireSimulationMemory(schedule, netpointsOf(Cluster(scenario.topology, gpus, scenario.placement)),
                                scenario.path + (i < scenario.gpuCounts.size() ? ": $.gpus[" + std::to_string(i) + "]"
                                                                                : std::string(": $.baseline_gpus")),
                                "simulating " + schedule.description() + " on " + std::to_string(gpus) + " GPUs");
      } catch (const InvalidArgument& error) {
        if (error.field().rfind(scenario.path, 0) == 0) throw;
        // The algorithm's options do not fit the scenario's buckets (1-byte chunks of a 25 MB bucket).
        throw InvalidArgument(scenario.path + ": " + choice.path, "at " + std::to_string(gpus) + " GPUs: " + error.what());
      }
    }
  }
}

namespace {

ScalingPoint simulatePoint(const Scenario& scenario, const IterationPlan& plan, const ScenarioAlgorithm& choice, int gpus,
                           const IterationEffects& effects) {
  const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
  const AlgorithmOptions options = scenario.optionsFor(choice, gpus);
  const Cluster cluster(scenario.topology, gpus, scenario.placement);
  // Each simulation in a process of its own (sim/fresh_process.hpp), so that what ran before changes nothing.
  const std::vector<double> simulated = inFreshProcess([&] {
    const IterationSimulation iteration = simulateIteration(plan, algorithm, options, cluster, effects);
    std::vector<double> values{iteration.iterationSeconds};
    for (const CollectiveMeasurement& allreduce : iteration.allreduces) values.push_back(allreduce.seconds);
    return values;
  });
  // The bandwidth part of the exposed communication is what is left with no latency anywhere.
  const double withoutLatency = inFreshProcess([&] {
    return std::vector<double>{
        simulateIteration(plan, algorithm, options, PlatformWithoutLatency(cluster), effects).iterationSeconds};
  }).at(0);
  if (simulated.size() != plan.buckets().size() + 1) throw SimulationError("a point's simulation lost its buckets");
  ScalingPoint point;
  point.configuration = scenario.name;
  point.gpus = gpus;
  point.hosts = cluster.nodes();
  point.ranksPerHost = cluster.ranksOnBusiestNode();
  point.algorithmName = choice.name;
  point.parameters = options;
  point.label = algorithm.description(options);
  point.batchPerGpu = scenario.batchPerGpu;
  point.iterationSeconds = simulated[0];
  // One GPU alone pays the per-iteration overhead too; jitter has mean 1, and the spread is about the median.
  point.computeSeconds = plan.workload().computeSeconds() + effects.iterationOverheadSeconds;
  for (std::size_t b = 0; b < plan.buckets().size(); ++b)
    point.collectives.push_back(allreduceMeasurement(
        static_cast<double>(plan.buckets()[b].elements.count) * plan.workload().elementBytes, simulated[b + 1], gpus));
  // The rest is latency. Never more than the whole, whatever the contention does.
  const double bandwidthPart = std::min(point.exposedCommunicationSeconds(), std::max(0.0, withoutLatency - point.computeSeconds));
  point.exposedLatencySeconds = point.exposedCommunicationSeconds() - bandwidthPart;
  return point;
}

// The effects that are on, as results record them.
void describeEffects(const Scenario& scenario, RunDescription& run) {
  const IterationEffects& effects = scenario.effects;
  if (!effects.any() && scenario.sourcedEffects.empty()) return;
  for (const EffectDeclaration& declaration : effectTable()) {
    const bool sourced = std::find(scenario.sourcedEffects.begin(), scenario.sourcedEffects.end(), &declaration) !=
                         scenario.sourcedEffects.end();
    // A sourced effect whose central value is 0 is recorded too: a range spans it.
    if (effects.*declaration.field > 0 || sourced) run.effects[std::string(declaration.key)] = effects.*declaration.field;
  }
  run.effects["seed"] = static_cast<double>(effects.seed);
  if (!effects.gpuTimeFactorsFile.empty()) run.gpuTimeFactors = std::filesystem::path(effects.gpuTimeFactorsFile).filename().string();
}

// The iteration time alone, for the ends of an effect range.
double simulatePointSeconds(const Scenario& scenario, const IterationPlan& plan, const ScenarioAlgorithm& choice, int gpus,
                            const IterationEffects& effects) {
  const Cluster cluster(scenario.topology, gpus, scenario.placement);
  const AlgorithmOptions options = scenario.optionsFor(choice, gpus);
  return inFreshProcess([&] {
    return std::vector<double>{
        simulateIteration(plan, findAlgorithm(CollectiveKind::Allreduce, choice.name), options, cluster, effects).iterationSeconds};
  }).at(0);
}

}  // namespace

ScalingResults simulateScenario(const Scenario& scenario, const SweepProgress& progress, double computeScale, bool effectRange) {
  if (effectRange && scenario.sourcedEffects.empty())
    throw InvalidArgument("--range", scenario.path + " gives no effect as \"sourced\" ($.effects): there is no range to span");
  ScalingResults results = emptyResults(scenario, "ddlsim");
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  results.run = describeRun("ddlsim", "simulated");
  results.run.computeScale = computeScale;
  results.run.precision = plan.workload().gradientPrecision;
  results.run.computePrecision = plan.workload().computePrecision;
  results.run.fusion = fusionPolicyName(scenario.fusion.policy);
  describeEffects(scenario, results.run);
  const std::size_t total = scenario.algorithms.size() * scenario.gpuCounts.size();
  const int baselineGpus = scenario.baselineGpus;
  // The two ends of the range: pessimistic, then optimistic.
  const IterationEffects ends[] = {scenario.effectsAt(true), scenario.effectsAt(false)};
  // The baseline iteration by label at baselineGpus: each configuration's is simulated once, first, so
  // that every point knows its efficiency when it is reported, and also where $.gpus does not list it.
  std::map<std::string, ScalingPoint> baselines;
  std::map<std::string, std::array<double, 2>> baselineEnds;
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    std::optional<double> baselineSeconds;  // one GPU alone: the point's own compute
    // One GPU alone at each end of the range: its compute and that end's per-iteration overhead.
    std::array<double, 2> baselineAtEnds{};
    for (int end = 0; end < 2; ++end) baselineAtEnds[end] = plan.workload().computeSeconds() + ends[end].iterationOverheadSeconds;
    if (baselineGpus > 1) {
      const std::string label = scenario.labelFor(choice, baselineGpus);
      auto it = baselines.find(label);
      if (it == baselines.end()) {
        it = baselines.emplace(label, simulatePoint(scenario, plan, choice, baselineGpus, scenario.effects)).first;
        if (effectRange)
          for (int end = 0; end < 2; ++end)
            baselineEnds[label][end] = simulatePointSeconds(scenario, plan, choice, baselineGpus, ends[end]);
      }
      baselineSeconds = it->second.iterationSeconds;
      if (effectRange) baselineAtEnds = baselineEnds.at(label);
    }
    for (int gpus : scenario.gpuCounts) {
      if (scenario.repeatsAnEarlierEntry(a, gpus)) continue;  // that point is simulated already
      ScalingPoint point = gpus == baselineGpus && baselineGpus > 1 ? baselines.at(scenario.labelFor(choice, gpus))
                                                                    : simulatePoint(scenario, plan, choice, gpus, scenario.effects);
      point.baselineGpus = baselineGpus;
      point.baselineSeconds = baselineSeconds;
      if (effectRange) {
        double efficiency[2];
        for (int end = 0; end < 2; ++end)
          efficiency[end] = baselineAtEnds[end] / (gpus == baselineGpus && baselineGpus > 1
                                                       ? baselineAtEnds[end]
                                                       : simulatePointSeconds(scenario, plan, choice, gpus, ends[end]));
        point.efficiencyRange = {efficiency[0], efficiency[1]};
      }
      results.points.push_back(point);
      if (progress) progress(results.points.size() - 1, total, point);
    }
  }
  return results;
}

IterationTimeline traceScenarioPoint(const Scenario& scenario, std::size_t algorithm, int gpus, double computeScale) {
  const ScenarioAlgorithm& choice = scenario.algorithms.at(algorithm);
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  IterationTimeline timeline;
  timeline.title = scenario.name + ": " + scenario.labelFor(choice, gpus) + " at " + std::to_string(gpus) +
                   " GPUs, predicted by ddlsim";
  const Cluster cluster(scenario.topology, gpus, scenario.placement);
  simulateIteration(plan, findAlgorithm(CollectiveKind::Allreduce, choice.name), scenario.optionsFor(choice, gpus), cluster,
                    scenario.effects, &timeline, scenario.labelFor(choice, gpus) + " at " + std::to_string(gpus) + " GPUs, predicted");
  return timeline;
}

}  // namespace ddl
