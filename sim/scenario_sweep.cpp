#include "sim/scenario_sweep.hpp"

#include "algorithms/collectives/registry.hpp"
#include "sim/iteration_simulation.hpp"

namespace ddl {

ScalingResults simulateScenario(const Scenario& scenario, const SweepProgress& progress, double computeScale) {
  ScalingResults results = emptyResults(scenario, "ddlsim");
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  const std::size_t total = scenario.algorithms.size() * scenario.gpuCounts.size();
  for (const ScenarioAlgorithm& choice : scenario.algorithms) {
    const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
    for (int gpus : scenario.gpuCounts) {
      const AlgorithmOptions options = scenario.optionsFor(choice, gpus);
      const Cluster cluster(scenario.topology, gpus, scenario.placement);
      const IterationSimulation simulated = simulateIteration(plan, algorithm, options, cluster);
      ScalingPoint point;
      point.configuration = scenario.name;
      point.gpus = gpus;
      point.algorithm = algorithm.description(options);
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

}  // namespace ddl
