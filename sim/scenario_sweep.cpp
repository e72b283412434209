#include "sim/scenario_sweep.hpp"

#include "algorithms/collectives/registry.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "common/invalid_argument.hpp"

#include "sim/iteration_simulation.hpp"
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

ScalingPoint simulatePoint(const Scenario& scenario, const IterationPlan& plan, const ScenarioAlgorithm& choice, int gpus) {
  const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
  const AlgorithmOptions options = scenario.optionsFor(choice, gpus);
  const Cluster cluster(scenario.topology, gpus, scenario.placement);
  const IterationSimulation simulated = simulateIteration(plan, algorithm, options, cluster);
  ScalingPoint point;
  point.configuration = scenario.name;
  point.gpus = gpus;
  point.hosts = cluster.nodes();
  point.ranksPerHost = cluster.ranksOnBusiestNode();
  point.algorithmName = choice.name;
  point.parameters = options;
  point.label = algorithm.description(options);
  point.batchPerGpu = scenario.batchPerGpu;
  point.iterationSeconds = simulated.iterationSeconds;
  point.computeSeconds = plan.workload().computeSeconds();
  point.collectives = simulated.allreduces;
  // The bandwidth part of the exposed communication is what is left with no latency anywhere; the rest is
  // latency. Never more than the whole, whatever the contention does.
  const double withoutLatency = simulateIteration(plan, algorithm, options, PlatformWithoutLatency(cluster)).iterationSeconds;
  const double bandwidthPart = std::min(point.exposedCommunicationSeconds(), std::max(0.0, withoutLatency - point.computeSeconds));
  point.exposedLatencySeconds = point.exposedCommunicationSeconds() - bandwidthPart;
  return point;
}

}  // namespace

ScalingResults simulateScenario(const Scenario& scenario, const SweepProgress& progress, double computeScale) {
  ScalingResults results = emptyResults(scenario, "ddlsim");
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  results.run = describeRun("ddlsim", "simulated");
  results.run.computeScale = computeScale;
  results.run.precision = plan.workload().gradientPrecision;
  results.run.computePrecision = plan.workload().computePrecision;
  const std::size_t total = scenario.algorithms.size() * scenario.gpuCounts.size();
  const int baselineGpus = scenario.baselineGpus;
  // The baseline iteration by label at baselineGpus: each configuration's is simulated once, first, so
  // that every point knows its efficiency when it is reported, and also where $.gpus does not list it.
  std::map<std::string, ScalingPoint> baselines;
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    std::optional<double> baselineSeconds;  // one GPU alone: the point's own compute
    if (baselineGpus > 1) {
      const std::string label = scenario.labelFor(choice, baselineGpus);
      auto it = baselines.find(label);
      if (it == baselines.end()) it = baselines.emplace(label, simulatePoint(scenario, plan, choice, baselineGpus)).first;
      baselineSeconds = it->second.iterationSeconds;
    }
    for (int gpus : scenario.gpuCounts) {
      if (scenario.repeatsAnEarlierEntry(a, gpus)) continue;  // that point is simulated already
      ScalingPoint point = gpus == baselineGpus && baselineGpus > 1 ? baselines.at(scenario.labelFor(choice, gpus))
                                                                    : simulatePoint(scenario, plan, choice, gpus);
      point.baselineGpus = baselineGpus;
      point.baselineSeconds = baselineSeconds;
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
                    &timeline, scenario.labelFor(choice, gpus) + " at " + std::to_string(gpus) + " GPUs, predicted");
  return timeline;
}

}  // namespace ddl
