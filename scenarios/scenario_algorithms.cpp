#include "scenarios/scenario_algorithms.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/training/iteration_steps.hpp"
#include "common/data_files.hpp"
#include "common/invalid_argument.hpp"
#include "scenarios/nccl_job.hpp"
#include "topologies/node_routes.hpp"
#include "topologies/topology_grid.hpp"

namespace ddl {

namespace {

ClusterShape shapeWithRoutes(const Topology& topology, int gpus, const NodeRoutes& routes) {
  return {topology.name, topologyGrid(topology, gpus), topology.node.gpus, routes.nicsInUse()};
}

}  // namespace

ClusterShape clusterShapeOf(const Topology& topology, int gpus) { return shapeWithRoutes(topology, gpus, NodeRoutes(topology)); }

ClusterShape clusterShapeOf(const Cluster& cluster) {
  return shapeWithRoutes(cluster.topology(), cluster.hosts(), cluster.nodeRoutes());
}

AlgorithmOptions Scenario::optionsFor(const ScenarioAlgorithm& algorithm, int gpus) const {
  AlgorithmOptions options;
  if (algorithm.choosesPerBucket()) return options;
  const JsonReader reader(path, algorithm.path);
  const AlgorithmDefinition& definition = findAlgorithm(CollectiveKind::Allreduce, algorithm.name);
  for (const ScenarioOption& option : algorithm.options) {
    const OptionDeclaration& declaration = *option.declaration;
    const JsonReader at = reader.at(std::string(declaration.key));
    if (option.derived) {
      try {
        declaration.set(options, declaration.derive(definition, clusterShapeOf(topology, gpus), gpus));
      } catch (const InvalidArgument& error) {
        at.fail(error.message());
      }
    } else if (!option.byGpus.empty()) {
      const auto chosen = std::find_if(option.byGpus.begin(), option.byGpus.end(),
                                       [&](const auto& entry) { return entry.first == gpus; });
      if (chosen == option.byGpus.end()) at.fail("no grid given for " + std::to_string(gpus) + " GPUs");
      declaration.set(options, chosen->second);
    } else if (option.value) {
      declaration.set(options, *option.value);
    }
  }
  try {
    makeSchedule(findAlgorithm(CollectiveKind::Allreduce, algorithm.name),
                 {CollectiveKind::Allreduce, gpus, 0, 4}, options);
  } catch (const InvalidArgument& error) {
    reader.fail("at " + std::to_string(gpus) + " GPUs: " + error.what());
  }
  return options;
}

TuningTable Scenario::tuningTableFor(const ScenarioAlgorithm& algorithm, int gpus, CollectiveKind kind) const {
  const JsonReader at = JsonReader(path, algorithm.path).at("tuning");
  std::string name = algorithm.tuning;
  for (const auto& [placeholder, value] : {std::pair<std::string, std::string>{"{gpus}", std::to_string(gpus)},
                                           std::pair<std::string, std::string>{"{collective}", std::string(toString(kind))}})
    for (std::size_t found = name.find(placeholder); found != std::string::npos; found = name.find(placeholder, found))
      name.replace(found, placeholder.size(), value);
  const std::string tableOf = kind == CollectiveKind::Allreduce ? "" : std::string(toString(kind)) + " ";
  std::string file;
  try {
    file = findDataFile("scenarios/tuning", name, path, path + ": " + at.path());
  } catch (const InvalidArgument& error) {
    at.fail("no " + tableOf + "tuning table for " + std::to_string(gpus) + " GPUs: " + error.message() + " (ddlsim tune" +
            (tableOf.empty() ? "" : " --collective " + std::string(toString(kind))) + " --topology " + topology.name + " --gpus " +
            std::to_string(gpus) + " --json --out FILE makes one)");
  }
  TuningTable table;
  try {
    table = loadTuningTable(file);
  } catch (const InvalidArgument& error) {
    at.fail("the table for " + std::to_string(gpus) + " GPUs: " + error.what());
  }
  const std::string mismatch = tuningMismatch(table, kind, gpus, topology.name);
  if (!mismatch.empty()) at.fail(file + " " + mismatch);
  if (table.elementBytes != gradientElementBytes(gradients))
    at.fail(file + " was tuned for " + std::to_string(table.elementBytes) + "-byte elements, not " +
            std::to_string(gradientElementBytes(gradients)) + " (" + gradients + " gradients)");
  return table;
}

namespace {

// "auto" at `gpus` GPUs: its `kind` table's choice for each bucket of `plan`, each checked to fit it, at the
// size the bucket's collectives run (collectiveElements: a sharded plan pads each unit).
BucketAlgorithms tableChoices(const Scenario& scenario, const ScenarioAlgorithm& algorithm, int gpus, const IterationPlan& plan,
                              CollectiveKind kind) {
  const TuningTable table = scenario.tuningTableFor(algorithm, gpus, kind);
  const bool sharded = isSharded(scenario.parallelism);
  const int elementBytes = plan.workload().elementBytes;
  BucketAlgorithms chosen;
  for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
    const Elements elements = collectiveElements(plan.buckets()[b].elements.count, scenario.parallelism, gpus);
    chosen.push_back(table.choose(static_cast<double>(elements) * elementBytes));
    try {
      makeSchedule(*chosen[b].algorithm, {kind, gpus, elements, elementBytes}, chosen[b].options);
    } catch (const InvalidArgument& error) {
      const std::string which = sharded ? "the " + std::string(toString(kind)) + " choice for unit " : "the choice for bucket ";
      JsonReader(scenario.path, algorithm.path).at("tuning").fail("at " + std::to_string(gpus) + " GPUs, " + chosen[b].label() + " (" +
                                                                 which + std::to_string(b) + "): " + error.message());
    }
  }
  return chosen;
}

}  // namespace

BucketAlgorithms Scenario::bucketAlgorithms(const ScenarioAlgorithm& algorithm, int gpus, const IterationPlan& plan) const {
  const std::vector<GradientBucket>& buckets = plan.buckets();
  if (!algorithm.choosesPerBucket())
    return BucketAlgorithms(buckets.size(), {&findAlgorithm(CollectiveKind::Allreduce, algorithm.name), optionsFor(algorithm, gpus)});
  // One GPU sends nothing, whatever the algorithm: it needs no table.
  if (gpus == 1) return BucketAlgorithms(buckets.size(), {&findAlgorithm(CollectiveKind::Allreduce, "ring"), {}});
  if (algorithm.ncclChosen()) return ncclBucketAlgorithms(algorithm, gpus, plan, CollectiveKind::Allreduce);
  return tableChoices(*this, algorithm, gpus, plan, CollectiveKind::Allreduce);
}

std::vector<BucketAlgorithms> Scenario::shardedBucketAlgorithms(const ScenarioAlgorithm& algorithm, int gpus,
                                                                 const IterationPlan& plan) const {
  std::vector<BucketAlgorithms> perKind;
  for (const CollectiveKind kind : collectiveKindsOf(parallelism)) {
    // One GPU sends nothing, whatever the algorithm: it needs no table.
    if (!algorithm.choosesPerBucket() || gpus == 1) {
      const std::string name = algorithm.choosesPerBucket() ? "ring" : algorithm.name;
      perKind.emplace_back(plan.buckets().size(), AlgorithmChoice{&findAlgorithm(kind, name), optionsFor(algorithm, gpus)});
      continue;
    }
    perKind.push_back(algorithm.ncclChosen() ? ncclBucketAlgorithms(algorithm, gpus, plan, kind)
                                             : tableChoices(*this, algorithm, gpus, plan, kind));
  }
  return perKind;
}

// NCCL's choice for each bucket's collective of `kind` (algorithms/tuning/nccl_tuning_model.hpp) under Simple:
// an iteration runs on one platform for all its buckets, calibrated to Simple, so no bucket can run under
// another protocol. Each is chosen at the size its collective runs at (collectiveElements).
BucketAlgorithms Scenario::ncclBucketAlgorithms(const ScenarioAlgorithm& algorithm, int gpus, const IterationPlan& plan,
                                                CollectiveKind kind) const {
  if (placement != Placement::Packed)
    JsonReader(path, algorithm.path).at("name").fail("nccl takes ranks packed onto their nodes, as NCCL's rings and trees "
                                                     "number them, not the scenario's round-robin placement");
  NcclJob job;
  try {
    job = ncclJobOf(topology, gpus, algorithm.nvls ? NvlsUse::WhereNcclRunsIt : NvlsUse::Never);
  } catch (const InvalidArgument& error) {
    JsonReader(path, algorithm.path).at("name").fail("nccl at " + std::to_string(gpus) + " GPUs: " + error.message());
  }
  BucketAlgorithms chosen;
  for (const GradientBucket& bucket : plan.buckets()) {
    const Elements elements = collectiveElements(bucket.elements.count, parallelism, gpus);
    chosen.push_back(ncclChoice(job, kind, static_cast<double>(elements) * plan.workload().elementBytes, Protocol::Simple).algorithm);
  }
  return chosen;
}

Scenario loadScenario(const std::string& path) { return scenarioFromJson(readJsonFile(path), path); }

// A sharded plan reduce-scatters and all-gathers: each entry must name algorithms of both kinds, whose
// options fit every GPU count, or be "auto" with a table of each kind at every count, or "nccl" (NCCL's
// rings, not under hybrid, whose collectives run within a node and across the nodes).
void requireShardedAlgorithms(const JsonReader& root, const Scenario& scenario) {
  if (!isSharded(scenario.parallelism)) return;
  const std::string parallelism = parallelismName(scenario.parallelism);
  for (std::size_t i = 0; i < scenario.algorithms.size(); ++i) {
    const ScenarioAlgorithm& entry = scenario.algorithms[i];
    const JsonReader name = root.at("algorithms").at(i).at("name");
    if (entry.ncclChosen()) {
      if (scenario.parallelism == Parallelism::Hybrid)
        name.fail("'nccl' under hybrid would choose for a node's GPUs and for the nodes, which its model does not: "
                  "name an algorithm of its three kinds");
      const IterationPlan plan = scenario.iterationPlan();
      for (int gpus : scenario.simulatedGpuCounts()) scenario.shardedBucketAlgorithms(entry, gpus, plan);
      continue;
    }
    if (entry.tuned()) {
      // Hybrid's collectives run over a node's GPUs and across the nodes: tables of other GPU counts.
      if (scenario.parallelism == Parallelism::Hybrid)
        name.fail("'auto' under hybrid would need tables for a node's GPUs and for the nodes: name an algorithm of its three kinds");
      if (entry.tuning.find("{collective}") == std::string::npos)
        root.at("algorithms").at(i).at("tuning").fail("'" + entry.tuning + "' names one table, but " + parallelism +
                                                      " reduce-scatters and all-gathers: put {collective} in it, as in "
                                                      "dgx-h100-ndr-{collective}-{gpus}.json");
      const IterationPlan plan = scenario.iterationPlan();
      for (int gpus : scenario.simulatedGpuCounts()) scenario.shardedBucketAlgorithms(entry, gpus, plan);
      continue;
    }
    try {
      for (CollectiveKind kind : collectiveKindsOf(scenario.parallelism)) {
        const AlgorithmDefinition& algorithm = findAlgorithm(kind, entry.name);
        for (int gpus : scenario.simulatedGpuCounts()) checkOptions(algorithm, gpus, scenario.optionsFor(entry, gpus));
      }
    } catch (const InvalidArgument& error) {
      name.fail(parallelism + " reduce-scatters and all-gathers: " + error.message());
    }
  }
}

}  // namespace ddl
