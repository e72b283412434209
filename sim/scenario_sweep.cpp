#include "sim/scenario_sweep.hpp"

#include "algorithms/collectives/registry.hpp"
#include <algorithm>

#include "common/invalid_argument.hpp"

#include "sim/iteration_simulation.hpp"
#include "sim/simulation_memory.hpp"

namespace ddl {

void requireScenarioMemory(const Scenario& scenario, double computeScale) {
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  // A point holds one bucket's programs at a time; the bucket with the most elements has the most steps.
  Elements largest = 0;
  for (const GradientBucket& bucket : plan.buckets()) largest = std::max(largest, bucket.elements.count);
  for (const ScenarioAlgorithm& choice : scenario.algorithms) {
    const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
    for (std::size_t i = 0; i < scenario.gpuCounts.size(); ++i) {
      const int gpus = scenario.gpuCounts[i];
      const AlgorithmOptions options = scenario.optionsFor(choice, gpus);
      try {
        const Schedule schedule = makeSchedule(algorithm, {CollectiveKind::Allreduce, gpus, largest, plan.workload().elementBytes}, options);
        requireSimulationMemory(schedule, netpointsOf(Cluster(scenario.topology, gpus, scenario.placement)),
                                scenario.path + ": $.gpus[" + std::to_string(i) + "]",
                                "simulating " + schedule.description() + " on " + std::to_string(gpus) + " GPUs");
      } catch (const InvalidArgument& error) {
        if (error.field().rfind(scenario.path, 0) == 0) throw;
        // The algorithm's options do not fit the scenario's buckets (1-byte chunks of a 25 MB bucket).
        throw InvalidArgument(scenario.path + ": " + choice.path, "at " + std::to_string(gpus) + " GPUs: " + error.what());
      }
    }
  }
}

ScalingResults simulateScenario(const Scenario& scenario, const SweepProgress& progress, double computeScale) {
  ScalingResults results = emptyResults(scenario, "ddlsim");
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  results.run = describeRun("ddlsim", "simulated");
  results.run.computeScale = computeScale;
  results.run.precision = precisionName(plan.workload().elementBytes);
  const std::size_t total = scenario.algorithms.size() * scenario.gpuCounts.size();
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
    for (int gpus : scenario.gpuCounts) {
      if (scenario.repeatsAnEarlierEntry(a, gpus)) continue;  // that point is simulated already
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
