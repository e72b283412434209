#include "runtime/train/train_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/statistics.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/output_file.hpp"
#include "algorithms/io/results_json.hpp"
#include "algorithms/io/trace_json.hpp"
#include "algorithms/training/measured_effects.hpp"
#include "algorithms/training/parallelism.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "common/fault_injection.hpp"
#include "runtime/job_hosts.hpp"
#include "runtime/transport_buffer.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Measured {
  ScalingPoint point;
  std::int64_t wrong = 0;
  std::vector<TimelineSpan> lastIteration;  // this rank's spans of the last timed iteration, as it saw them
};

// Each timed iteration's forward and backward compute with nothing else running, all ranks together: the
// "alone" of the measured effects, once per job (it does not depend on the algorithm).
std::vector<double> measureComputeAlone(const std::vector<double>& phases, const TrainOptions& options, RankContext& context) {
  std::vector<double> seconds;
  for (int iteration = 0; iteration < options.warmup + options.iterations; ++iteration) {
    context.world.barrier();
    context.compute.start(phases);
    context.compute.waitForPhase(phases.size() - 1);
    if (iteration >= options.warmup) seconds.push_back(context.compute.phaseEnd(phases.size() - 1));
  }
  return seconds;
}

// How long [from, to) and [begin, end) share.
double overlapOf(double from, double to, double begin, double end) { return std::max(0.0, std::min(to, end) - std::max(from, begin)); }

// Every rank's samples, on rank 0 (nothing elsewhere).
std::optional<MeasuredEffects> gatherEffects(const RankEffectSamples& mine, const std::string& compute, World& world) {
  const nlohmann::json text = {{"alone", mine.computeAlone}, {"overlapped", mine.computeOverlapped},
                               {"overlap", mine.overlap}, {"overhead", mine.allreduceOverhead}};
  const std::vector<std::string> all = world.gatherText(text.dump());
  if (world.rank() != 0) return std::nullopt;
  std::vector<RankEffectSamples> ranks;
  for (const std::string& one : all) {
    const nlohmann::json j = nlohmann::json::parse(one);
    ranks.push_back({j["alone"].get<std::vector<double>>(), j["overlapped"].get<std::vector<double>>(),
                     j["overlap"].get<std::vector<double>>(), j["overhead"].get<std::vector<double>>()});
  }
  return summarizeEffects(ranks, compute);
}

// The runtime's type for a scenario's gradient precision (kGradientPrecisions).
DataType gradientDataType(const std::string& precision) {
  if (precision == "fp16") return DataType::Float16;
  if (precision == "bf16") return DataType::BFloat16;
  return DataType::Float32;
}

Measured measure(const Scenario& scenario, const ScenarioAlgorithm& choice, const IterationPlan& plan,
                 const std::vector<double>& computeAlone, const TrainOptions& options, RankContext& context) {
  World& world = context.world;
  const int ranks = world.size();
  const Rank rank = world.rank();
  // "auto" runs what the scenario's tuning table for this many ranks chooses per bucket, as ddlsim does.
  const BucketAlgorithms algorithms = scenario.bucketAlgorithms(choice, ranks, plan);
  const TrainingWorkload& workload = plan.workload();
  const BenchCollective& allreduce = benchCollective(CollectiveKind::Allreduce);
  const DataType type = gradientDataType(workload.gradientPrecision);
  const int elementBytes = static_cast<int>(sizeOf(type));
  std::vector<Program> programs;
  for (std::size_t b = 0; b < algorithms.size(); ++b)
    programs.push_back(makeSchedule(*algorithms[b].algorithm,
                                    {CollectiveKind::Allreduce, ranks, plan.buckets()[b].elements.count, elementBytes},
                                    algorithms[b].options)
                           .program(rank));
  freezeIfAsked("setup", rank);
  reserveChannels(context.world, context.transport, programs);

  const auto gradientBytes = static_cast<std::size_t>(workload.gradientElements()) * static_cast<std::size_t>(elementBytes);
  TransportBuffer gradients(context.transport, gradientBytes);
  auto* gradientsOnHost = static_cast<std::byte*>(gradients.host());
  auto* gradientsInTransport = static_cast<std::byte*>(gradients.data());
  // Where bucket `bucket` starts in a buffer of gradients.
  auto at = [&](std::byte* buffer, const GradientBucket& bucket) { return buffer + bucket.elements.offset * elementBytes; };
  const std::vector<double> phases = plan.computePhases();
  RunOptions timed = options.run;
  timed.timeRuns = true;  // the overhead per allreduce below reads each run's times
  ProgramRunner runner(context.transport, timed);
  std::vector<double> iterations;
  std::vector<std::vector<double>> bucketSeconds(plan.buckets().size());
  Measured measured;
  RankEffectSamples effects;
  effects.computeAlone = computeAlone;
  // Seconds since an iteration's start of a time point of the runner's.
  auto secondsAt = [](Clock::time_point start, Clock::time_point at) { return std::chrono::duration<double>(at - start).count(); };

  for (int iteration = 0; iteration < options.warmup + options.iterations; ++iteration) {
    const bool checked = iteration == 0;  // the first run also proves the buckets' sums exact
    if (checked) {
      for (const GradientBucket& bucket : plan.buckets())
        allreduce.fill(at(gradientsOnHost, bucket), bucket.elements.count, rank, ranks, type);
      gradients.toTransport(gradientBytes);
    }
    freezeIfAsked("barrier", rank);
    world.barrier();
    const Clock::time_point start = Clock::now();
    // The last timed iteration is traced: its compute phases where the emulator says they ended, its
    // allreduces as measured.
    const bool traced = iteration + 1 == options.warmup + options.iterations;
    const std::size_t buckets = plan.buckets().size();
    const std::string group = scenario.labelFor(choice, ranks) + " at " + std::to_string(ranks) + " GPUs, measured";
    const double computeStart = since(start);
    context.compute.start(phases);
    double lastAllreduceEnd = 0;
    std::vector<std::pair<double, double>> allreduces;  // this iteration's, since start
    double overhead = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      context.compute.waitForPhase(b);  // the backward pass has produced this bucket's gradients
      const double bucketFullAt = computeStart + context.compute.phaseEnd(b);  // since start, as it ended
      // With Horovod's cycles the allreduce starts at the tick after the bucket was full (at once if the
      // last allreduce ran past it), as the simulator starts it, its ticks counted from forward's start;
      // one rank waits for none.
      const double tick =
          ranks > 1 && plan.cycleSeconds() > 0 ? computeStart + plan.nextTick(bucketFullAt - computeStart) : 0;
      if (tick > since(start))
        std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(tick)));
      freezeIfAsked("compute", rank);
      const double bucketStart = since(start);
      freezeIfAsked("allreduce", rank);
      runner.run(programs[b], at(gradientsInTransport, plan.buckets()[b]), type);
      const double bucketEnd = since(start);
      bucketSeconds[b].push_back(bucketEnd - bucketStart);
      allreduces.emplace_back(bucketStart, bucketEnd);
      // The allreduce could start once its gradients were there, the tick had come and the last one was
      // done; what it took beyond its transfers and reductions from then is the runtime's overhead.
      const double ready = std::max({bucketFullAt, tick, lastAllreduceEnd});
      overhead += std::max(0.0, secondsAt(start, runner.lastRun().firstPost) - ready) +
                  std::max(0.0, bucketEnd - secondsAt(start, runner.lastRun().lastCompletion));
      lastAllreduceEnd = bucketEnd;
      if (traced)
        measured.lastIteration.push_back(allreduceSpan(group, rank, b,
                                                       elementBytes * static_cast<double>(plan.buckets()[b].elements.count),
                                                       algorithms[b].label(), programs[b], bucketStart, bucketEnd));
    }
    context.compute.waitForPhase(phases.size() - 1);
    if (traced) {
      double phaseStart = computeStart;
      for (std::size_t phase = 0; phase < phases.size(); ++phase) {
        const double phaseEnd = computeStart + context.compute.phaseEnd(phase);
        if (phases[phase] > 0)
          measured.lastIteration.push_back({group, rank, "compute", computePhaseName(phase, buckets), phaseStart, phaseEnd, {}});
        phaseStart = phaseEnd;
      }
    }
    if (iteration >= options.warmup) {
      const double computeSeconds = context.compute.phaseEnd(phases.size() - 1);
      double overlap = 0;
      for (const auto& [from, to] : allreduces) overlap += overlapOf(from, to, computeStart, computeStart + computeSeconds);
      effects.computeOverlapped.push_back(computeSeconds);
      effects.overlap.push_back(overlap);
      effects.allreduceOverhead.push_back(overhead / static_cast<double>(buckets));
    }
    // The optimizer step, after backward and after the last allreduce.
    const double optimizerStart = since(start);
    context.compute.start({workload.optimizerSeconds});
    context.compute.waitForPhase(0);
    if (traced)
      measured.lastIteration.push_back(
          {group, rank, "compute", computePhaseName(buckets + 1, buckets), optimizerStart, since(start), {}});
    freezeIfAsked("results", rank);
    const double seconds = world.maxOverRanks(since(start));
    if (iteration >= options.warmup) iterations.push_back(seconds);
    if (checked) {
      gradients.fromTransport(gradientBytes);
      for (const GradientBucket& bucket : plan.buckets())
        measured.wrong += allreduce.countWrong(at(gradientsOnHost, bucket), bucket.elements.count, rank, ranks, type);
    }
  }
  measured.wrong = world.sumOverRanks(measured.wrong);
  measured.point.measuredEffects = gatherEffects(effects, context.compute.description(), world);

  ScalingPoint& point = measured.point;
  point.configuration = options.configuration.empty() ? scenario.name : options.configuration;
  point.gpus = ranks;
  point.algorithmName = choice.name;
  point.parameters = scenario.optionsFor(choice, ranks);
  point.label = scenario.labelFor(choice, ranks);
  point.batchPerGpu = scenario.batchPerGpu;
  point.iterationSeconds = upperMedian(iterations);
  point.computeSeconds = workload.computeSeconds();
  for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
    CollectiveMeasurement collective;
    collective.bytes = elementBytes * static_cast<double>(plan.buckets()[b].elements.count);
    collective.seconds = world.maxOverRanks(upperMedian(bucketSeconds[b]));
    collective.algbwBps = collective.seconds > 0 ? collective.bytes / collective.seconds : 0;
    collective.busbwBps = collective.algbwBps * busBandwidthFactor(CollectiveKind::Allreduce, ranks);
    if (choice.choosesPerBucket() && ranks > 1) collective.chosen = algorithms[b].label();
    point.collectives.push_back(collective);
  }
  return measured;
}

// One line under the point's: the effects as ddlsim's scenario keys name them.
void printMeasuredEffects(const MeasuredEffects& effects) {
  auto estimate = [](const std::optional<double>& value, double unit, const char* format) {
    char text[32] = "-";
    if (value) std::snprintf(text, sizeof text, format, *value * unit);
    return std::string(text);
  };
  std::printf("        compute (%s) alone %.3f ms, beside allreduces %.3f ms, overlapping them %.3f ms: "
              "overlap_slowdown %s, compute_jitter %s, gpu_speed_spread %s, allreduce_overhead %s us\n",
              effects.compute.c_str(), mean(effects.computeAloneSeconds) * 1e3, mean(effects.computeOverlappedSeconds) * 1e3,
              mean(effects.overlapSeconds) * 1e3, estimate(effects.overlapSlowdown(), 1, "%.3f").c_str(),
              estimate(effects.computeJitter(), 1, "%.4f").c_str(), estimate(effects.gpuSpeedSpread(), 1, "%.4f").c_str(),
              estimate(effects.allreduceOverhead(), 1e6, "%.1f").c_str());
}

}  // namespace

int runTrain(const Scenario& scenario, const TrainOptions& options, RankContext& context) {
  Transport& transport = context.transport;
  const Rank rank = context.world.rank();
  const IterationPlan plan = scenario.iterationPlan(options.computeScale);
  for (const ScenarioAlgorithm& choice : scenario.algorithms) scenario.bucketAlgorithms(choice, context.world.size(), plan);
  // Calibrated together, with nothing else running, as the compute alone is then measured.
  context.world.barrier();
  context.compute.calibrate();
  const std::vector<double> computeAlone = measureComputeAlone(plan.computePhases(), options, context);

  ScalingResults results = emptyResults(scenario, "ddlrun");
  // It ran on this job's machines, not on the scenario's cluster.
  results.topology.clear();
  results.run = describeRun("ddlrun", options.transport);
  results.run.computeScale = options.computeScale;
  results.run.precision = plan.workload().gradientPrecision;
  results.run.computePrecision = plan.workload().computePrecision;
  results.run.fusion = fusionPolicyName(plan.fusion().policy);
  results.run.parallelism = parallelismName(Parallelism::Ddp);  // what ddlrun train runs
  const JobHosts hosts = jobHosts(context.world);
  // A job measures one GPU count: its efficiency is against its own compute alone, whatever the scenario's
  // baseline (each point says so: baseline_gpus 1). ddlcompare compares iteration times, which the
  // baseline does not change, and notes the difference.
  if (rank == 0 && scenario.baselineGpus != 1)
    std::fprintf(stderr, "ddlrun: note: efficiency is against one GPU's compute (baseline_gpus 1), not the scenario's %d GPUs\n",
                 scenario.baselineGpus);
  IterationTimeline timeline;
  timeline.title = scenario.name + ": the last timed iteration of each algorithm on " + std::to_string(context.world.size()) +
                   " ranks over " + options.transport + ", measured by ddlrun (allreduces measured; compute emulated, "
                   "scaled by " + std::to_string(options.computeScale) + ")";
  std::int64_t wrong = 0;
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    const ScenarioAlgorithm& choice = scenario.algorithms[a];
    if (scenario.repeatsAnEarlierEntry(a, context.world.size())) continue;  // measured already
    Measured measured;
    try {
      measured = measure(scenario, choice, plan, computeAlone, options, context);
    } catch (const TransportError& error) {
      transport.abortJob("training iteration with " + choice.name + ": " + error.what());
    }
    wrong += measured.wrong;
    if (!options.trace.empty())
      for (const std::string& spans : context.world.gatherText(spansToText(measured.lastIteration)))
        for (const TimelineSpan& span : spansFromText(spans)) timeline.spans.push_back(span);
    measured.point.hosts = hosts.hosts;
    measured.point.ranksPerHost = hosts.ranksPerHost;
    results.points.push_back(measured.point);
    if (rank == 0 && !options.json)
      std::printf("%6d  %-36s %10.3f ms  efficiency %5.1f%%  exposed %8.3f ms  %s\n", measured.point.gpus,
                  measured.point.label.c_str(), measured.point.iterationSeconds * 1e3, 100 * measured.point.efficiency(),
                  measured.point.exposedCommunicationSeconds() * 1e3, measured.wrong == 0 ? "sums exact" : "WRONG SUMS");
    if (rank == 0 && !options.json) printMeasuredEffects(*measured.point.measuredEffects);
  }
  if (rank == 0 && (options.json || !options.out.empty()))
    writeOutput(options.out, [&](std::ostream& out) { out << resultsToJson(results).dump(1) << "\n"; });
  if (rank == 0 && !options.trace.empty())
    writeOutput(options.trace, [&](std::ostream& out) { out << chromeTrace(timeline).dump() << "\n"; });
  return wrong == 0 ? 0 : 1;
}

}  // namespace ddl
