#include "sim/sweep/scenario_sweep.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"
#include "common/machine_memory.hpp"
#include "common/number_text.hpp"
#include "sim/engine/simulation_error.hpp"
#include "sim/engine/switch_placement.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/simulation_memory.hpp"
#include "topologies/platform_at_job_speed.hpp"
#include "topologies/platform_without_latency.hpp"

namespace ddl {

int jobsThatFit(int jobs, double bytesPerSimulation) {
  const double available = static_cast<double>(availableMemoryBytes());
  const double fit = bytesPerSimulation > 0 ? std::floor(available / bytesPerSimulation) : jobs;
  return static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(std::max(jobs, 1))));
}

namespace {

// The effects set `set` of a sweep: 0 the central one, 1 + k Monte Carlo sample k's, drawn when asked for
// rather than held (a sample copies the GPU time factors a scenario may draw from).
IterationEffects effectsSet(const Scenario& scenario, const SweepSettings& settings, std::size_t set) {
  if (set == 0) return scenario.effects;
  if (settings.onlySeeds) return sampleEffects(scenario.effects, {}, set - 1, true, false);
  if (settings.onlyJob) return sampleEffects(scenario.effects, {}, set - 1, false, true);
  if (settings.onlyEffect) return sampleEffects(scenario.effects, std::span(&settings.onlyEffect, 1), set - 1, false, false);
  return sampleEffects(scenario.effects, scenario.sourcedEffects, set - 1);
}

// What the samples of `settings` vary, for the sweep's signature: shares drawing jobs from different files
// (ddlsim --job-time-factors) are different sweeps.
std::string samplesDescription(const Scenario& scenario, const SweepSettings& settings) {
  if (settings.samples == 0) return "";
  const std::string& jobs = scenario.effects.jobTimeFactorsFile;
  return "; " + std::to_string(settings.samples) + " samples" +
         (settings.onlySeeds ? " of the seeds alone"
          : settings.onlyJob  ? " of the job's time factor alone"
          : settings.onlyEffect ? " of " + std::string(settings.onlyEffect->key) + " alone"
                                : "") +
         (jobs.empty() ? "" : ", jobs from " + std::filesystem::path(jobs).filename().string());
}

// Whether anything of the scenario differs from one sample to the next: a sourced effect, a per-rank draw,
// or the job's time factor.
bool anythingUncertain(const Scenario& scenario) {
  return !scenario.sourcedEffects.empty() || scenario.effects.drawsPerRank() || !scenario.effects.jobTimeFactors.empty();
}

// Where the scenario asks for `gpus` GPUs, for messages: $.gpus[i], or $.baseline_gpus for a baseline it
// does not list.
std::string gpusField(const Scenario& scenario, int gpus) {
  const auto listed = std::find(scenario.gpuCounts.begin(), scenario.gpuCounts.end(), gpus);
  if (listed == scenario.gpuCounts.end()) return scenario.path + ": $.baseline_gpus";
  return scenario.path + ": $.gpus[" + std::to_string(listed - scenario.gpuCounts.begin()) + "]";
}

// Where a schedule reduces in switches (nccl-nvls, nccl-nvls-tree), they must sit one per node, each serving
// its node's GPUs: InvalidArgument naming the entry otherwise.
void requireSwitchesFit(const Scenario& scenario, const ScenarioAlgorithm& choice, const IterationCollectives& buckets) {
  if (buckets.switches() == 0) return;
  const Cluster cluster(scenario.topology, buckets.gpus, scenario.placement);
  for (const Schedule& schedule : buckets.schedules)
    if (const std::optional<SwitchMisfit> misfit = switchMisfit(schedule.ranks(), schedule.spec().switches, schedule.description(), cluster))
      throw InvalidArgument(scenario.path + ": " + choice.path, "at " + std::to_string(buckets.gpus) + " GPUs: " + misfit->reason);
}

// Each collective of `choice` at `gpus` GPUs: each bucket's allreduce, or under a sharded plan each
// bucket's reduce-scatter and all-gather by the algorithms of the entry's name or by auto's tables.
IterationCollectives pointBuckets(const Scenario& scenario, const IterationPlan& plan, const ScenarioAlgorithm& choice, int gpus) {
  try {
    IterationCollectives buckets =
        isSharded(scenario.parallelism)
            ? shardedCollectives(plan, scenario.parallelism, scenario.shardedBucketAlgorithms(choice, gpus, plan), gpus,
                                 scenario.topology.node.gpus)
            : bucketAllreduces(plan, scenario.bucketAlgorithms(choice, gpus, plan), gpus);
    requireSwitchesFit(scenario, choice, buckets);
    return buckets;
  } catch (const InvalidArgument& error) {
    if (error.field().rfind(scenario.path, 0) == 0) throw;
    // The algorithm's options do not fit the scenario's buckets (1-byte chunks of a 25 MB bucket).
    throw InvalidArgument(scenario.path + ": " + choice.path, "at " + std::to_string(gpus) + " GPUs: " + error.what());
  }
}

// The SimGrid hosts a point's platform makes (sim/sweep/simulation_memory.hpp): the cluster's and its switches'.
int netpointsOf(const IterationPlatform& on) { return netpointsOf(on.cluster()) + on.switches(); }

// One point of the sweep and its simulations: the iteration (its time, each bucket's allreduce, and how
// much the step engine evened the buckets, 0 for not at all), the iteration with no latency anywhere, and
// each Monte Carlo sample's iteration time.
struct Point {
  const ScenarioAlgorithm* choice = nullptr;
  int gpus = 0;
  IterationCollectives buckets;
  std::size_t first = 0;  // its first simulation
  std::size_t count = 0;
  bool listed = false;  // a point of the results, not only a baseline
};

enum class Run { Iteration, WithoutLatency, Sample };
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
  const IterationSteps& steps = tasks.buckets.steps;
  if (simulated.size() != steps.collectives.size() + 2) throw SimulationError("a point's simulation lost its collectives");
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
  // The compute of one of these GPUs (a sharded optimizer updates a 1/N share), with the per-iteration
  // overhead; jitter has mean 1, and the spread is about the median.
  point.computeSeconds = scenario.effects.iterationOverheadSeconds;
  for (const ComputePhase& phase : steps.phases) point.computeSeconds += phase.seconds;
  // One GPU alone, the baseline where the scenario names no other, steps the whole optimizer: under a sharded
  // plan that is not this point's compute. A baseline point of the sweep replaces it (ScenarioSweep::results).
  if (isSharded(scenario.parallelism))
    point.baselineSeconds = plan.workload().computeSeconds() + scenario.effects.iterationOverheadSeconds;
  for (std::size_t c = 0; c < steps.collectives.size(); ++c) {
    const PlannedCollective& collective = steps.collectives[c];
    point.collectives.push_back(collectiveMeasurement(collective.kind, collectiveBytes(plan, collective), simulated[c + 1], collective.groupRanks));
    // What "auto" chose for each bucket; one GPU allreduces nothing.
    if (choice.choosesPerBucket() && tasks.gpus > 1)
      point.collectives.back().chosen = tasks.buckets.algorithms[tasks.buckets.scheduleIndex(collective)].label();
  }
  // The rest is latency. Never more than the whole, whatever the contention does.
  const double withoutLatency = values.at(tasks.first + 1).at(0);
  const double bandwidthPart = std::min(point.exposedCommunicationSeconds(), std::max(0.0, withoutLatency - point.computeSeconds));
  point.exposedLatencySeconds = point.exposedCommunicationSeconds() - bandwidthPart;
  return point;
}

// The iteration time of Monte Carlo sample `sample` of a point.
double sampleSeconds(const Point& point, const std::vector<std::vector<double>>& values, std::size_t sample) {
  return values.at(point.first + 2 + sample).at(0);
}

// A point's distribution over the sweep's `samples`, each sample's efficiency against `baseline` (null: one
// GPU alone) under the same draw, since the shared inputs move both. One GPU alone takes its compute at the
// sample's job speed (a job times its own baseline) and the sample's per-iteration overhead: its jitter has
// mean 1, its GPU's speed is the median's.
PredictiveInterval intervalOf(const Scenario& scenario, const SweepSettings& settings, const ScalingPoint& point,
                              const Point& simulated, const Point* baseline, double computeSeconds,
                              const std::vector<std::vector<double>>& values) {
  std::vector<double> iterations, images, efficiencies;
  for (std::size_t sample = 0; sample < static_cast<std::size_t>(settings.samples); ++sample) {
    const double seconds = sampleSeconds(simulated, values, sample);
    const IterationEffects drawn = effectsSet(scenario, settings, 1 + sample);
    const double baselineSeconds = baseline ? sampleSeconds(*baseline, values, sample)
                                            : computeSeconds * drawn.jobTimeFactor + drawn.iterationOverheadSeconds;
    iterations.push_back(seconds);
    images.push_back(point.gpus * point.batchPerGpu / seconds);
    efficiencies.push_back(baselineSeconds / seconds);
  }
  return {static_cast<int>(iterations.size()), percentilesOf(iterations), percentilesOf(images), percentilesOf(efficiencies)};
}

// The effects that are on, as results record them.
void describeEffects(const Scenario& scenario, RunDescription& run) {
  const IterationEffects& effects = scenario.effects;
  if (!effects.any() && scenario.sourcedEffects.empty() && effects.jobTimeFactors.empty()) return;
  for (const EffectDeclaration& declaration : effectTable()) {
    // A sourced effect whose central value is 0 is recorded too: its prior is drawn from.
    if (effects.*declaration.field > 0 || scenario.sourced(declaration)) run.effects[std::string(declaration.key)] = effects.*declaration.field;
  }
  run.effects["seed"] = static_cast<double>(effects.seed);
  if (!effects.gpuTimeFactorsFile.empty()) run.gpuTimeFactors = std::filesystem::path(effects.gpuTimeFactorsFile).filename().string();
  if (!effects.jobTimeFactorsFile.empty()) run.jobTimeFactors = std::filesystem::path(effects.jobTimeFactorsFile).filename().string();
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
    for (std::size_t set = 1; set < effectsSets; ++set) simulations.push_back({point, Run::Sample, set});
    points.back()->count = simulations.size() - point->first;
    return point;
  }
};

ScenarioSweep::ScenarioSweep(const Scenario& scenario, const Engine& engine, SweepSettings settings)
    : scenario_(scenario), engine_(engine), settings_(settings), plan_(scenario.iterationPlan(settings.computeScale)),
      listing_(std::make_unique<Listing>()) {
  if (settings.samples > 0 && !anythingUncertain(scenario))
    throw InvalidArgument("--samples", scenario.path + " has nothing uncertain to sample: no effect is \"sourced\" ($.effects) "
                                       "and none is drawn per rank (compute_jitter, gpu_speed_spread, gpu_time_factors) "
                                       "or per job (job_time_factors)");
  const auto effectsSets = static_cast<std::size_t>(1 + settings.samples);
  const int baselineGpus = scenario.baselineGpus;
  Listing& listing = *listing_;
  std::map<std::string, Point*> baselines;  // by label
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    Point* baseline = nullptr;
    if (baselineGpus > 1) {
      const std::string label = scenario.labelFor(choice, baselineGpus);
      auto found = baselines.find(label);
      if (found == baselines.end()) found = baselines.emplace(label, listing.add(scenario, plan_, choice, baselineGpus, effectsSets)).first;
      baseline = found->second;
    }
    for (int gpus : scenario.gpuCounts) {
      if (scenario.repeatsAnEarlierEntry(a, gpus)) continue;  // that point is simulated already
      Point* point = gpus == baselineGpus && baseline ? baseline : listing.add(scenario, plan_, choice, gpus, effectsSets);
      point->listed = true;
      listing.listed.push_back({point, baseline});
    }
  }
}

ScenarioSweep::~ScenarioSweep() = default;

double ScenarioSweep::requireMemory() const {
  double most = 0;
  for (const std::unique_ptr<Point>& point : listing_->points) {
    const IterationPlatform on(scenario_.topology, scenario_.placement, point->buckets);
    const int netpoints = netpointsOf(on);
    // Under every effects set it runs: the central one and the samples, which all draw the same effects
    // (each almost surely non-zero), so that the first stands for them all.
    int held = 0;
    for (std::size_t set = 0; set < (settings_.samples > 0 ? 2u : 1u); ++set)
      held = std::max(held, engine_.ranksHeld(plan_, point->buckets, on.platform(), effectsSet(scenario_, settings_, set), false));
    // A point holds one collective's programs at a time: of each algorithm's schedules, the largest needs most.
    for (std::size_t b : largestScheduleOfEachAlgorithm(point->buckets)) {
      const Schedule& schedule = point->buckets.schedules[b];
      most = std::max(most, estimatedSimulationBytes(schedule, netpoints, held, engine_.world()));
      requireSimulationMemory(schedule, netpoints, gpusField(scenario_, point->gpus),
                              "simulating " + schedule.description() + " on " + std::to_string(point->gpus) + " GPUs", held,
                              engine_.world());
    }
  }
  return most;
}

std::size_t ScenarioSweep::simulations() const { return listing_->simulations.size(); }

std::string ScenarioSweep::signature() const {
  std::string signature = scenario_.name + "; engine " + std::string(engine_.name()) + "; compute scale " +
                          shortNumber(settings_.computeScale) + samplesDescription(scenario_, settings_);
  for (const Simulation& simulation : listing_->simulations) {
    const Point& point = *simulation.point;
    signature += "; " + scenario_.labelFor(*point.choice, point.gpus) + " at " + std::to_string(point.gpus) + " GPUs: " +
                 (simulation.run == Run::Iteration        ? "iteration"
                  : simulation.run == Run::WithoutLatency ? "without latency"
                                                          : "sample " + std::to_string(simulation.effects - 1));
  }
  return signature;
}

std::vector<double> ScenarioSweep::simulate(std::size_t simulation) const {
  const Simulation& listed = listing_->simulations.at(simulation);
  const Point& point = *listed.point;
  const IterationEffects effects = effectsSet(scenario_, settings_, listed.effects);
  const IterationPlatform on(scenario_.topology, scenario_.placement, point.buckets);
  const PlatformDescription& platform = on.platform();
  switch (listed.run) {
    case Run::Iteration: {
      const IterationSimulation iteration = engine_.iteration(plan_, point.buckets, platform, effects);
      std::vector<double> values{iteration.iterationSeconds};
      for (const CollectiveMeasurement& allreduce : iteration.allreduces) values.push_back(allreduce.seconds);
      values.push_back(iteration.evenedBucketChange);
      return values;
    }
    case Run::WithoutLatency: return {engine_.iteration(plan_, point.buckets, PlatformWithoutLatency(platform), effects).iterationSeconds};
    // A sample's job does its host work (reductions, carrying) at its own speed, as it computes.
    case Run::Sample: return {engine_.iteration(plan_, point.buckets, PlatformAtJobSpeed(platform, effects.jobTimeFactor), effects).iterationSeconds};
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
  results.run.parallelism = parallelismName(scenario_.parallelism);
  describeEffects(scenario_, results.run);
  for (const Listing::Listed& entry : listing_->listed) {
    ScalingPoint point = assemblePoint(scenario_, plan_, *entry.point, values);
    point.baselineGpus = scenario_.baselineGpus;
    if (entry.baseline) point.baselineSeconds = values.at(entry.baseline->first).at(0);
    if (settings_.samples > 0)
      point.interval = intervalOf(scenario_, settings_, point, *entry.point, entry.baseline,
                                  plan_.workload().computeSeconds(), values);
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
  const IterationCollectives buckets = pointBuckets(scenario_, plan_, scenario_.algorithms.at(algorithm), gpus);
  const IterationPlatform on(scenario_.topology, scenario_.placement, buckets);
  const int held = engine_.ranksHeld(plan_, buckets, on.platform(), scenario_.effects, true);
  for (std::size_t b : largestScheduleOfEachAlgorithm(buckets))
    requireSimulationMemory(buckets.schedules[b], netpointsOf(on), "--trace-gpus",
                            "tracing " + tracedLabel(scenario_, algorithm, gpus), held, engine_.world());
}

IterationTimeline ScenarioSweep::trace(std::size_t algorithm, int gpus) const {
  const std::string label = tracedLabel(scenario_, algorithm, gpus);
  const IterationCollectives buckets = pointBuckets(scenario_, plan_, scenario_.algorithms.at(algorithm), gpus);
  const IterationPlatform on(scenario_.topology, scenario_.placement, buckets);
  IterationTimeline timeline;
  timeline.title = scenario_.name + ": " + label + ", predicted by ddlsim";
  engine_.iteration(plan_, buckets, on.platform(), scenario_.effects, &timeline, label + ", predicted");
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
