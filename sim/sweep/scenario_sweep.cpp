#include "sim/sweep/scenario_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "common/invalid_argument.hpp"
#include "common/machine_memory.hpp"
#include "common/number_text.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/simulation_memory.hpp"
#include "topologies/platform_without_latency.hpp"

namespace ddl {

int jobsThatFit(int jobs, double bytesPerSimulation) {
  const double available = static_cast<double>(availableMemoryBytes());
  const double fit = bytesPerSimulation > 0 ? std::floor(available / bytesPerSimulation) : jobs;
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(std::max(jobs, 1))));
}

namespace {

// The effects a sweep simulates each point under: the central ones, then with a range its pessimistic and
// its optimistic end.
std::vector<IterationEffects> effectsSimulated(const Scenario& scenario, bool effectRange) {
  if (!effectRange) return {scenario.effects};
  return {scenario.effects, scenario.effectsAt(true), scenario.effectsAt(false)};
}

// Where the scenario asks for `gpus` GPUs, for messages: $.gpus[i], or $.baseline_gpus for a baseline it
// does not list.
std::string gpusField(const Scenario& scenario, int gpus) {
  const auto listed = std::find(scenario.gpuCounts.begin(), scenario.gpuCounts.end(), gpus);
  if (listed == scenario.gpuCounts.end()) return scenario.path + ": $.baseline_gpus";
  return scenario.path + ": $.gpus[" + std::to_string(listed - scenario.gpuCounts.begin()) + "]";
}

// Each bucket's allreduce of `choice` at `gpus` GPUs.
BucketAllreduces pointBuckets(const Scenario& scenario, const IterationPlan& plan, const ScenarioAlgorithm& choice, int gpus) {
  try {
    return bucketAllreduces(plan, scenario.bucketAlgorithms(choice, gpus, plan), gpus);
  } catch (const InvalidArgument& error) {
    if (error.field().rfind(scenario.path, 0) == 0) throw;
    // The algorithm's options do not fit the scenario's buckets (1-byte chunks of a 25 MB bucket).
    throw InvalidArgument(scenario.path + ": " + choice.path, "at " + std::to_string(gpus) + " GPUs: " + error.what());
  }
}

// One point of the sweep and its simulations: the iteration (its time, each bucket's allreduce, and how
// much the step engine evened the buckets, 0 for not at all), the iteration with no latency anywhere, and
// with a range each end's iteration time.
struct Point {
  const ScenarioAlgorithm* choice = nullptr;
  int gpus = 0;
  BucketAllreduces buckets;
  std::size_t first = 0;  // its first simulation
  std::size_t count = 0;
  bool listed = false;  // a point of the results, not only a baseline
};

enum class Run { Iteration, WithoutLatency, AtEnd };
struct Simulation {
  const Point* point;
  Run run;
  std::size_t effects;  // which of the sweep's effects sets
};

ScalingPoint assemblePoint(const Scenario& scenario, const IterationPlan& plan, const Point& tasks,
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
    if (choice.tuned() && tasks.gpus > 1) point.collectives.back().chosen = tasks.buckets.algorithms[b].label();
  }
  // The rest is latency. Never more than the whole, whatever the contention does.
  const double withoutLatency = values.at(tasks.first + 1).at(0);
  const double bandwidthPart = std::min(point.exposedCommunicationSeconds(), std::max(0.0, withoutLatency - point.computeSeconds));
  point.exposedLatencySeconds = point.exposedCommunicationSeconds() - bandwidthPart;
  return point;
}

// The iteration time at end `end` (0 pessimistic, 1 optimistic) of a ranged point.
double endSeconds(const Point& point, const std::vector<std::vector<double>>& values, int end) {
  return values.at(point.first + 2 + static_cast<std::size_t>(end)).at(0);
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

// Every point and simulation of the sweep, listed when the sweep is made. A baseline at baselineGpus is
// simulated once per configuration, also where $.gpus does not list it.
struct ScenarioSweep::Listing {
  struct Listed {
    const Point* point;
    const Point* baseline;  // its configuration's baseline; null: one GPU alone
  };
  std::vector<std::unique_ptr<Point>> points;  // each distinct point, the baselines among them
  std::vector<Simulation> simulations;
  std::vector<Listed> listed;  // the results' points, in order

  Point* add(const Scenario& scenario, const IterationPlan& plan, const ScenarioAlgorithm& choice, int gpus,
                   std::size_t effectsSets) {
    points.push_back(std::make_unique<Point>(Point{&choice, gpus, pointBuckets(scenario, plan, choice, gpus), simulations.size(), 0}));
    Point* point = points.back().get();
    simulations.push_back({point, Run::Iteration, 0});
    // The bandwidth part of the exposed communication is what is left with no latency anywhere.
    simulations.push_back({point, Run::WithoutLatency, 0});
    for (std::size_t end = 1; end < effectsSets; ++end) simulations.push_back({point, Run::AtEnd, end});
    points.back()->count = simulations.size() - point->first;
    return point;
  }
};

ScenarioSweep::ScenarioSweep(const Scenario& scenario, const Engine& engine, SweepSettings settings)
    : scenario_(scenario), engine_(engine), settings_(settings), plan_(scenario.iterationPlan(settings.computeScale)),
      listing_(std::make_unique<Listing>()) {
  if (settings.effectRange && scenario.sourcedEffects.empty())
    throw InvalidArgument("--range", scenario.path + " gives no effect as \"sourced\" ($.effects): there is no range to span");
  effects_ = effectsSimulated(scenario, settings.effectRange);
  const int baselineGpus = scenario.baselineGpus;
  Listing& listing = *listing_;
  std::map<std::string, Point*> baselines;  // by label
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    Point* baseline = nullptr;
    if (baselineGpus > 1) {
      const std::string label = scenario.labelFor(choice, baselineGpus);
      auto found = baselines.find(label);
      if (found == baselines.end()) found = baselines.emplace(label, listing.add(scenario, plan_, choice, baselineGpus, effects_.size())).first;
      baseline = found->second;
    }
    for (int gpus : scenario.gpuCounts) {
      if (scenario.repeatsAnEarlierEntry(a, gpus)) continue;  // that point is simulated already
      Point* point = gpus == baselineGpus && baseline ? baseline : listing.add(scenario, plan_, choice, gpus, effects_.size());
      point->listed = true;
      listing.listed.push_back({point, baseline});
    }
  }
}

ScenarioSweep::~ScenarioSweep() = default;

double ScenarioSweep::requireMemory() const {
  double most = 0;
  for (const std::unique_ptr<Point>& point : listing_->points) {
    const Cluster cluster(scenario_.topology, point->gpus, scenario_.placement);
    const int netpoints = netpointsOf(cluster);
    int held = 0;  // under every effects set it runs
    for (const IterationEffects& effects : effects_)
      held = std::max(held, engine_.ranksHeld(plan_, point->buckets, cluster, effects, false));
    // A point holds one bucket's programs at a time: of each algorithm's buckets, the largest needs most.
    for (std::size_t b : largestBucketOfEachAlgorithm(plan_, point->buckets.algorithms)) {
      const Schedule& schedule = point->buckets.schedules[b];
      most = std::max(most, estimatedSimulationBytes(schedule, netpoints, held));
      requireSimulationMemory(schedule, netpoints, gpusField(scenario_, point->gpus),
                              "simulating " + schedule.description() + " on " + std::to_string(point->gpus) + " GPUs", held);
    }
  }
  return most;
}

std::size_t ScenarioSweep::simulations() const { return listing_->simulations.size(); }

std::string ScenarioSweep::signature() const {
  std::string signature = scenario_.name + "; engine " + std::string(engine_.name()) + "; compute scale " +
                          shortNumber(settings_.computeScale) + (settings_.effectRange ? "; with a range" : "");
  for (const Simulation& simulation : listing_->simulations) {
    const Point& point = *simulation.point;
    signature += "; " + scenario_.labelFor(*point.choice, point.gpus) + " at " + std::to_string(point.gpus) + " GPUs: " +
                 (simulation.run == Run::Iteration        ? "iteration"
                  : simulation.run == Run::WithoutLatency ? "without latency"
                                                          : "at end " + std::to_string(simulation.effects));
  }
  return signature;
}

std::vector<double> ScenarioSweep::simulate(std::size_t simulation) const {
  const Simulation& listed = listing_->simulations.at(simulation);
  const Point& point = *listed.point;
  const IterationEffects& effects = effects_.at(listed.effects);
  const Cluster cluster(scenario_.topology, point.gpus, scenario_.placement);
  switch (listed.run) {
    case Run::Iteration: {
      const IterationSimulation iteration = engine_.iteration(plan_, point.buckets, cluster, effects);
      std::vector<double> values{iteration.iterationSeconds};
      for (const CollectiveMeasurement& allreduce : iteration.allreduces) values.push_back(allreduce.seconds);
      values.push_back(iteration.evenedBucketChange);
      return values;
    }
    case Run::WithoutLatency: return {engine_.iteration(plan_, point.buckets, PlatformWithoutLatency(cluster), effects).iterationSeconds};
    case Run::AtEnd: return {engine_.iteration(plan_, point.buckets, cluster, effects).iterationSeconds};
  }
  throw SimulationError("a sweep's simulation of no known kind");
}

std::size_t ScenarioSweep::points() const { return listing_->listed.size(); }

std::optional<ScalingPoint> ScenarioSweep::pointIfComplete(std::size_t simulation, const std::vector<std::vector<double>>& values) const {
  const Point& point = *listing_->simulations.at(simulation).point;
  if (!point.listed) return std::nullopt;
  for (std::size_t s = point.first; s < point.first + point.count; ++s)
    if (values.at(s).empty()) return std::nullopt;
  return assemblePoint(scenario_, plan_, point, values);
}

ScalingResults ScenarioSweep::results(const std::vector<std::vector<double>>& values) const {
  if (values.size() != simulations()) throw SimulationError("a sweep's results lack some of its simulations");
  ScalingResults results = emptyResults(scenario_, "ddlsim");
  results.run = describeRun("ddlsim", "simulated");
  results.run.engine = std::string(engine_.name());
  results.run.computeScale = settings_.computeScale;
  results.run.precision = plan_.workload().gradientPrecision;
  results.run.computePrecision = plan_.workload().computePrecision;
  results.run.fusion = fusionPolicyName(scenario_.fusion.policy);
  describeEffects(scenario_, results.run);
  for (const Listing::Listed& entry : listing_->listed) {
    ScalingPoint point = assemblePoint(scenario_, plan_, *entry.point, values);
    point.baselineGpus = scenario_.baselineGpus;
    // One GPU alone at each end of the range: its compute and that end's per-iteration overhead.
    double baselineAt[3];
    for (std::size_t end = 0; end < effects_.size(); ++end)
      baselineAt[end] = plan_.workload().computeSeconds() + effects_[end].iterationOverheadSeconds;
    if (entry.baseline) {
      baselineAt[0] = values.at(entry.baseline->first).at(0);
      point.baselineSeconds = baselineAt[0];
      if (settings_.effectRange)
        for (int end = 0; end < 2; ++end) baselineAt[1 + end] = endSeconds(*entry.baseline, values, end);
    }
    if (settings_.effectRange)
      point.efficiencyRange = {baselineAt[1] / endSeconds(*entry.point, values, 0), baselineAt[2] / endSeconds(*entry.point, values, 1)};
    results.points.push_back(point);
  }
  return results;
}

namespace {

std::string tracedLabel(const Scenario& scenario, std::size_t algorithm, int gpus) {
  return scenario.labelFor(scenario.algorithms.at(algorithm), gpus) + " at " + std::to_string(gpus) + " GPUs";
}

}  // namespace

void ScenarioSweep::requireTraceMemory(std::size_t algorithm, int gpus) const {
  const BucketAllreduces buckets = pointBuckets(scenario_, plan_, scenario_.algorithms.at(algorithm), gpus);
  const Cluster cluster(scenario_.topology, gpus, scenario_.placement);
  const int held = engine_.ranksHeld(plan_, buckets, cluster, scenario_.effects, true);
  for (std::size_t b : largestBucketOfEachAlgorithm(plan_, buckets.algorithms))
    requireSimulationMemory(buckets.schedules[b], netpointsOf(cluster), "--trace-gpus",
                            "tracing " + tracedLabel(scenario_, algorithm, gpus), held);
}

IterationTimeline ScenarioSweep::trace(std::size_t algorithm, int gpus) const {
  const std::string label = tracedLabel(scenario_, algorithm, gpus);
  const BucketAllreduces buckets = pointBuckets(scenario_, plan_, scenario_.algorithms.at(algorithm), gpus);
  const Cluster cluster(scenario_.topology, gpus, scenario_.placement);
  IterationTimeline timeline;
  timeline.title = scenario_.name + ": " + label + ", predicted by ddlsim";
  engine_.iteration(plan_, buckets, cluster, scenario_.effects, &timeline, label + ", predicted");
  return timeline;
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

ScalingResults simulateScenario(const Scenario& scenario, const Engine& engine, SweepSettings settings, int jobs,
                                const SweepProgress& progress) {
  const ScenarioSweep sweep(scenario, engine, settings);
  std::vector<std::size_t> every(sweep.simulations());
  for (std::size_t s = 0; s < every.size(); ++s) every[s] = s;
  return sweep.results(simulateSweep(sweep, every, jobs, progress));
}

}  // namespace ddl
