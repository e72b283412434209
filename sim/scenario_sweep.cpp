#include "sim/scenario_sweep.hpp"

#include "algorithms/collectives/registry.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "common/invalid_argument.hpp"
#include "common/machine_memory.hpp"

#include "sim/simulate_on.hpp"
#include "sim/fresh_process.hpp"
#include "sim/iteration_simulation.hpp"
#include "sim/simulation_error.hpp"
#include "sim/simulation_memory.hpp"
#include "topologies/platform_without_latency.hpp"

namespace ddl {
namespace {

// The effects a sweep simulates each point under: the central ones, then with a range its pessimistic and
// its optimistic end.
std::vector<IterationEffects> effectsSimulated(const Scenario& scenario, bool effectRange) {
  if (!effectRange) return {scenario.effects};
  return {scenario.effects, scenario.effectsAt(true), scenario.effectsAt(false)};
}

// The most ranks the step engine holds at once for a point, over every effects set it runs.
int mostRanksHeld(const IterationPlan& plan, const BucketAlgorithms& algorithms, const Cluster& cluster,
                  const std::vector<IterationEffects>& effects, int gpus) {
  const step::BucketEvening evening = step::eveningFor(plan, algorithms, gpus);
  int most = 0;
  for (const IterationEffects& each : effects)
    most = std::max(most, step::simulatedRanks(plan, algorithms, cluster, each, evening));
  return most;
}

}  // namespace

double requireScenarioMemory(const Scenario& scenario, double computeScale, bool stepEngineWithoutTrace, bool effectRange) {
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  const std::vector<IterationEffects> effects = effectsSimulated(scenario, effectRange);
  const std::vector<int> counts = scenario.simulatedGpuCounts();  // the baseline's too
  double most = 0;
  for (const ScenarioAlgorithm& choice : scenario.algorithms) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      const int gpus = counts[i];
      // A point holds one bucket's programs at a time: of each algorithm's buckets, the largest needs most.
      const BucketAlgorithms algorithms = scenario.bucketAlgorithms(choice, gpus, plan);
      std::optional<int> held;  // the ranks the point simulates: found once its schedules are known to build
      for (std::size_t b : largestBucketOfEachAlgorithm(plan, algorithms)) {
        try {
          const Schedule schedule = makeSchedule(
              *algorithms[b].algorithm,
              {CollectiveKind::Allreduce, gpus, plan.buckets()[b].elements.count, plan.workload().elementBytes}, algorithms[b].options);
          const Cluster cluster(scenario.topology, gpus, scenario.placement);
          const int netpoints = netpointsOf(cluster);
          if (!held) held = stepEngineWithoutTrace ? mostRanksHeld(plan, algorithms, cluster, effects, gpus) : gpus;
          most = std::max(most, estimatedSimulationBytes(schedule, netpoints, *held));
          requireSimulationMemory(schedule, netpoints,
                                  scenario.path + (i < scenario.gpuCounts.size() ? ": $.gpus[" + std::to_string(i) + "]"
                                                                                  : std::string(": $.baseline_gpus")),
                                  "simulating " + schedule.description() + " on " + std::to_string(gpus) + " GPUs", *held);
        } catch (const InvalidArgument& error) {
          if (error.field().rfind(scenario.path, 0) == 0) throw;
          // The algorithm's options do not fit the scenario's buckets (1-byte chunks of a 25 MB bucket).
          throw InvalidArgument(scenario.path + ": " + choice.path, "at " + std::to_string(gpus) + " GPUs: " + error.what());
        }
      }
    }
  }
  return most;
}

int jobsThatFit(int jobs, double bytesPerSimulation) {
  const double available = static_cast<double>(availableMemoryBytes());
  const double fit = bytesPerSimulation > 0 ? std::floor(available / bytesPerSimulation) : jobs;
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(std::max(jobs, 1))));
}

namespace {

using Task = std::function<std::vector<double>()>;

// One point's simulations among a sweep's tasks: the iteration (its time, each bucket's allreduce, and how
// much the step engine evened the buckets, 0 for not at all), the iteration with no latency anywhere, and
// with a range each end's iteration time.
struct PointTasks {
  const ScenarioAlgorithm* choice = nullptr;
  int gpus = 0;
  BucketAlgorithms algorithms;  // what allreduces each bucket
  std::size_t first = 0;  // its first task
  std::size_t count = 0;
};

PointTasks addPointTasks(std::vector<Task>& tasks, const Scenario& scenario, const IterationPlan& plan,
                         const ScenarioAlgorithm& choice, int gpus, const std::vector<IterationEffects>& effects,
                         SimulationEngine engine) {
  PointTasks point{&choice, gpus, scenario.bucketAlgorithms(choice, gpus, plan), tasks.size(), 0};
  const BucketAlgorithms& algorithms = point.algorithms;
  tasks.push_back([&scenario, &plan, algorithms, gpus, engine, central = effects.front()] {
    const IterationSimulation iteration =
        simulateIterationOn(engine, plan, algorithms, Cluster(scenario.topology, gpus, scenario.placement), central);
    std::vector<double> values{iteration.iterationSeconds};
    for (const CollectiveMeasurement& allreduce : iteration.allreduces) values.push_back(allreduce.seconds);
    values.push_back(iteration.evenedBucketChange);
    return values;
  });
  // The bandwidth part of the exposed communication is what is left with no latency anywhere.
  tasks.push_back([&scenario, &plan, algorithms, gpus, engine, central = effects.front()] {
    const Cluster cluster(scenario.topology, gpus, scenario.placement);
    return std::vector<double>{simulateIterationOn(engine, plan, algorithms, PlatformWithoutLatency(cluster), central).iterationSeconds};
  });
  for (std::size_t end = 1; end < effects.size(); ++end)
    tasks.push_back([&scenario, &plan, algorithms, gpus, engine, atEnd = effects[end]] {
      return std::vector<double>{
          simulateIterationOn(engine, plan, algorithms, Cluster(scenario.topology, gpus, scenario.placement), atEnd).iterationSeconds};
    });
  point.count = tasks.size() - point.first;
  return point;
}

ScalingPoint assemblePoint(const Scenario& scenario, const IterationPlan& plan, const PointTasks& tasks,
                           const std::vector<std::vector<double>>& values) {
  const ScenarioAlgorithm& choice = *tasks.choice;
  const Cluster cluster(scenario.topology, tasks.gpus, scenario.placement);
  const std::vector<double>& simulated = values.at(tasks.first);
  if (simulated.size() != plan.buckets().size() + 2) throw SimulationError("a point's simulation lost its buckets");
  ScalingPoint point;
  point.configuration = scenario.name;
  point.gpus = tasks.gpus;
  point.hosts = cluster.nodes();
  point.ranksPerHost = cluster.ranksOnBusiestNode();
  point.algorithmName = choice.name;
  point.parameters = scenario.optionsFor(choice, tasks.gpus);
  point.label = scenario.labelFor(choice, tasks.gpus);
  point.batchPerGpu = scenario.batchPerGpu;
  point.iterationSeconds = simulated[0];
  if (simulated.back() > 0) point.evenedBucketChange = simulated.back();
  // One GPU alone pays the per-iteration overhead too; jitter has mean 1, and the spread is about the median.
  point.computeSeconds = plan.workload().computeSeconds() + scenario.effects.iterationOverheadSeconds;
  for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
    point.collectives.push_back(allreduceMeasurement(
        static_cast<double>(plan.buckets()[b].elements.count) * plan.workload().elementBytes, simulated[b + 1], tasks.gpus));
    // What "auto" chose for each bucket; one GPU allreduces nothing.
    if (choice.tuned() && tasks.gpus > 1) point.collectives.back().chosen = tasks.algorithms[b].label();
  }
  // The rest is latency. Never more than the whole, whatever the contention does.
  const double withoutLatency = values.at(tasks.first + 1).at(0);
  const double bandwidthPart = std::min(point.exposedCommunicationSeconds(), std::max(0.0, withoutLatency - point.computeSeconds));
  point.exposedLatencySeconds = point.exposedCommunicationSeconds() - bandwidthPart;
  return point;
}

// The iteration time at end `end` (0 pessimistic, 1 optimistic) of a ranged point.
double endSeconds(const PointTasks& tasks, const std::vector<std::vector<double>>& values, int end) {
  return values.at(tasks.first + 2 + static_cast<std::size_t>(end)).at(0);
}

// The effects that are on, as results record them.
void describeEffects(const Scenario& scenario, RunDescription& run) {
  const IterationEffects& effects = scenario.effects;
  if (!effects.any() && scenario.sourcedEffects.empty()) return;
  for (const EffectDeclaration& declaration : effectTable()) {
    // A sourced effect whose central value is 0 is recorded too: a range spans it.
    if (effects.*declaration.field > 0 || scenario.sourced(declaration)) run.effects[std::string(declaration.key)] = effects.*declaration.field;
  }
  run.effects["seed"] = static_cast<double>(effects.seed);
  if (!effects.gpuTimeFactorsFile.empty()) run.gpuTimeFactors = std::filesystem::path(effects.gpuTimeFactorsFile).filename().string();
}

}  // namespace

// Every simulation of the sweep, listed when the sweep is made; the results, from their values. A baseline at
// baselineGpus is simulated once per configuration, also where $.gpus does not list it.
struct ScenarioSweep::Listing {
  struct Listed {
    PointTasks tasks;
    std::string baseline;  // its configuration's baseline label; empty: one GPU alone
  };
  std::vector<Task> tasks;
  std::map<std::string, PointTasks> baselines;  // by label
  std::vector<Listed> listed;
};

ScenarioSweep::ScenarioSweep(const Scenario& scenario, double computeScale, bool effectRange, SimulationEngine engine)
    : scenario_(scenario), plan_(scenario.iterationPlan(computeScale)), computeScale_(computeScale),
      effectRange_(effectRange), engine_(engine), listing_(std::make_unique<Listing>()) {
  if (effectRange && scenario.sourcedEffects.empty())
    throw InvalidArgument("--range", scenario.path + " gives no effect as \"sourced\" ($.effects): there is no range to span");
  effects_ = effectsSimulated(scenario, effectRange);
  const int baselineGpus = scenario.baselineGpus;
  Listing& listing = *listing_;
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    std::string baseline;
    if (baselineGpus > 1) {
      baseline = scenario.labelFor(choice, baselineGpus);
      if (!listing.baselines.count(baseline))
        listing.baselines.emplace(baseline, addPointTasks(listing.tasks, scenario, plan_, choice, baselineGpus, effects_, engine));
    }
    for (int gpus : scenario.gpuCounts) {
      if (scenario.repeatsAnEarlierEntry(a, gpus)) continue;  // that point is simulated already
      listing.listed.push_back({gpus == baselineGpus && baselineGpus > 1
                                    ? listing.baselines.at(baseline)
                                    : addPointTasks(listing.tasks, scenario, plan_, choice, gpus, effects_, engine),
                                baseline});
    }
  }
}

ScenarioSweep::~ScenarioSweep() = default;

std::size_t ScenarioSweep::simulations() const { return listing_->tasks.size(); }

std::vector<double> ScenarioSweep::simulate(std::size_t simulation) const { return listing_->tasks.at(simulation)(); }

std::size_t ScenarioSweep::points() const { return listing_->listed.size(); }

std::optional<ScalingPoint> ScenarioSweep::pointIfComplete(std::size_t simulation, const std::vector<std::vector<double>>& values) const {
  for (const Listing::Listed& point : listing_->listed) {
    if (simulation < point.tasks.first || simulation >= point.tasks.first + point.tasks.count) continue;
    for (std::size_t t = point.tasks.first; t < point.tasks.first + point.tasks.count; ++t)
      if (values.at(t).empty()) return std::nullopt;
    return assemblePoint(scenario_, plan_, point.tasks, values);
  }
  return std::nullopt;
}

ScalingResults ScenarioSweep::results(const std::vector<std::vector<double>>& values) const {
  if (values.size() != simulations()) throw SimulationError("a sweep's results lack some of its simulations");
  ScalingResults results = emptyResults(scenario_, "ddlsim");
  results.run = describeRun("ddlsim", "simulated");
  results.run.engine = std::string(toString(engine_));
  results.run.computeScale = computeScale_;
  results.run.precision = plan_.workload().gradientPrecision;
  results.run.computePrecision = plan_.workload().computePrecision;
  results.run.fusion = fusionPolicyName(scenario_.fusion.policy);
  describeEffects(scenario_, results.run);
  const int baselineGpus = scenario_.baselineGpus;
  for (const Listing::Listed& entry : listing_->listed) {
    ScalingPoint point = assemblePoint(scenario_, plan_, entry.tasks, values);
    point.baselineGpus = baselineGpus;
    // One GPU alone at each end of the range: its compute and that end's per-iteration overhead.
    double baselineAt[3];
    for (std::size_t end = 0; end < effects_.size(); ++end)
      baselineAt[end] = plan_.workload().computeSeconds() + effects_[end].iterationOverheadSeconds;
    if (!entry.baseline.empty()) {
      const PointTasks& baseline = listing_->baselines.at(entry.baseline);
      baselineAt[0] = values.at(baseline.first).at(0);
      point.baselineSeconds = baselineAt[0];
      if (effectRange_)
        for (int end = 0; end < 2; ++end) baselineAt[1 + end] = endSeconds(baseline, values, end);
    }
    if (effectRange_)
      point.efficiencyRange = {baselineAt[1] / endSeconds(entry.tasks, values, 0), baselineAt[2] / endSeconds(entry.tasks, values, 1)};
    results.points.push_back(point);
  }
  return results;
}

std::vector<std::vector<double>> simulateSweep(const ScenarioSweep& sweep, const std::vector<std::size_t>& simulations,
                                               int jobs, const SweepProgress& progress) {
  std::vector<std::function<std::vector<double>()>> tasks;
  for (const std::size_t simulation : simulations) tasks.push_back([&sweep, simulation] { return sweep.simulate(simulation); });
  std::vector<std::vector<double>> values(sweep.simulations());
  std::size_t reported = 0;
  inFreshProcesses(tasks, jobs, [&](std::size_t task, const std::vector<double>& result) {
    const std::size_t simulation = simulations[task];
    values[simulation] = result;
    if (!progress) return;
    if (const std::optional<ScalingPoint> point = sweep.pointIfComplete(simulation, values))
      progress(reported++, sweep.points(), *point);
  });
  return values;
}

ScalingResults simulateScenario(const Scenario& scenario, const SweepProgress& progress, double computeScale, bool effectRange,
                                int jobs, SimulationEngine engine) {
  const ScenarioSweep sweep(scenario, computeScale, effectRange, engine);
  std::vector<std::size_t> every(sweep.simulations());
  for (std::size_t s = 0; s < every.size(); ++s) every[s] = s;
  return sweep.results(simulateSweep(sweep, every, jobs, progress));
}

IterationTimeline traceScenarioPoint(const Scenario& scenario, std::size_t algorithm, int gpus, double computeScale,
                                     SimulationEngine engine) {
  const ScenarioAlgorithm& choice = scenario.algorithms.at(algorithm);
  const IterationPlan plan = scenario.iterationPlan(computeScale);
  IterationTimeline timeline;
  timeline.title = scenario.name + ": " + scenario.labelFor(choice, gpus) + " at " + std::to_string(gpus) +
                   " GPUs, predicted by ddlsim";
  const Cluster cluster(scenario.topology, gpus, scenario.placement);
  simulateIterationOn(engine, plan, scenario.bucketAlgorithms(choice, gpus, plan), cluster, scenario.effects, &timeline, scenario.labelFor(choice, gpus) + " at " + std::to_string(gpus) + " GPUs, predicted");
  return timeline;
}

}  // namespace ddl
