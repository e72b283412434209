#include "sim/cli/scenario_command.hpp"

#include <algorithm>
#include <chrono>
#include <utility>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "algorithms/io/results_json.hpp"
#include "algorithms/io/trace_json.hpp"
#include "common/cli_checks.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"
#include "common/limits.hpp"
#include "common/machine_memory.hpp"
#include "common/number_text.hpp"
#include "common/output_file.hpp"
#include "sim/cli/human_units.hpp"
#include "sim/cli/python_plot.hpp"
#include "sim/registered_engines.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {
namespace {

struct Arguments {
  std::string scenario;
  bool json = false;
  bool csv = false;
  std::string out;
  std::string plot;
  std::string trace;
  int traceGpus = 0;
  std::string traceAlgorithm;
  double computeScale = 1;
  bool range = false;
  int jobs = defaultJobs();
  std::string engine = "auto";
  // A sweep split over the ranks of an MPI job (sim/sweep/mpi_sweep_main.cpp): each rank simulates its share,
  // every K-th simulation from its index, into a values file; rank 0 then formats them all.
  std::string share;  // "INDEX/COUNT"
  std::string shareOut;
  std::vector<std::string> sweepValues;
};

// "2/8" -> {2, 8}; InvalidArgument naming --share otherwise.
std::pair<std::size_t, std::size_t> parseShare(const std::string& text) {
  const std::size_t slash = text.find('/');
  std::size_t index = 0, count = 0;
  try {
    if (slash == std::string::npos) throw std::invalid_argument(text);
    index = std::stoul(text.substr(0, slash));
    count = std::stoul(text.substr(slash + 1));
  } catch (const std::exception&) {
    throw InvalidArgument("--share", "'" + text + "' is not INDEX/COUNT");
  }
  if (count == 0 || index >= count) throw InvalidArgument("--share", "'" + text + "': the index must lie below the count");
  return {index, count};
}

// A share's values: {"simulations": N, "values": [[simulation, [value, ...]], ...]}. JSON numbers round-trip
// a double exactly, so a split sweep's results are the bytes one process gives.
nlohmann::json shareToJson(std::size_t simulations, const std::vector<std::size_t>& mine,
                           const std::vector<std::vector<double>>& values) {
  nlohmann::json json{{"simulations", simulations}, {"values", nlohmann::json::array()}};
  for (const std::size_t simulation : mine) json["values"].push_back({simulation, values[simulation]});
  return json;
}

// Every simulation's values from the shares' files, each simulation in exactly one.
std::vector<std::vector<double>> valuesFromShares(const std::vector<std::string>& paths, std::size_t simulations) {
  std::vector<std::vector<double>> values(simulations);
  std::vector<bool> seen(simulations, false);
  for (const std::string& path : paths) {
    const nlohmann::json json = readJsonFile(path);
    try {
      if (json.at("simulations").get<std::size_t>() != simulations)
        throw InvalidArgument("--sweep-values", path + " is a share of another sweep");
      for (const nlohmann::json& entry : json.at("values")) {
        const auto simulation = entry.at(0).get<std::size_t>();
        if (simulation >= simulations || seen[simulation])
          throw InvalidArgument("--sweep-values", path + ": simulation " + std::to_string(simulation) + " is out of place");
        seen[simulation] = true;
        values[simulation] = entry.at(1).get<std::vector<double>>();
      }
    } catch (const nlohmann::json::exception& error) {
      throw InvalidArgument("--sweep-values", path + ": " + error.what());
    }
  }
  for (std::size_t simulation = 0; simulation < simulations; ++simulation)
    if (!seen[simulation]) throw InvalidArgument("--sweep-values", "no share holds simulation " + std::to_string(simulation));
  return values;
}

// How the buckets were formed: "ddp: the first at 1.0 MiB, then 26.2 MB".
std::string fusionLine(const GradientFusion& fusion) {
  const std::string cap = formatBytes(static_cast<double>(fusion.bucketBytes));
  switch (fusion.policy) {
    case FusionPolicy::Size: return "each closing at " + cap;
    case FusionPolicy::Ddp: return "ddp: the first at " + formatBytes(static_cast<double>(fusion.firstBucketBytes)) + ", then " + cap;
    case FusionPolicy::Horovod: return "horovod: what each " + formatSeconds(fusion.cycleSeconds) + " cycle holds, up to " + cap;
    case FusionPolicy::PerLayer: return "per-layer: one per layer";
  }
  return fusionPolicyName(fusion.policy);
}

// "compute_jitter 0.002 (sourced), overlap_slowdown 0.189 (sourced); seed 1": what the table's points include.
std::string effectsLine(const Scenario& scenario) {
  std::string line;
  for (const EffectDeclaration& declaration : effectTable()) {
    const double value = scenario.effects.*declaration.field;
    const bool sourced = scenario.sourced(declaration);
    if (value <= 0 && !sourced) continue;
    line += (line.empty() ? "" : ", ") + std::string(declaration.key) + " " + shortNumber(value) + (sourced ? " (sourced)" : "");
  }
  if (!scenario.effects.gpuTimeFactorsFile.empty())
    line += (line.empty() ? "" : ", ") + std::string("GPU time factors from ") + scenario.effects.gpuTimeFactorsFile;
  if (line.empty()) return "none (the ideal iteration: compute and communication alone)";
  return line + "; seed " + std::to_string(scenario.effects.seed);
}

// Which entry of the scenario --trace-algorithm names (the first of that name; the first entry by default),
// and which GPU count --trace-gpus gives (the largest of the sweep by default).
std::pair<std::size_t, int> tracedPoint(const Scenario& scenario, const Arguments& args) {
  std::size_t entry = 0;
  if (!args.traceAlgorithm.empty()) {
    while (entry < scenario.algorithms.size() && scenario.algorithms[entry].name != args.traceAlgorithm) ++entry;
    if (entry == scenario.algorithms.size())
      throw InvalidArgument("--trace-algorithm", "'" + args.traceAlgorithm + "' is not an algorithm of " + args.scenario);
  }
  int gpus = *std::max_element(scenario.gpuCounts.begin(), scenario.gpuCounts.end());
  if (args.traceGpus != 0) {
    if (std::find(scenario.gpuCounts.begin(), scenario.gpuCounts.end(), args.traceGpus) == scenario.gpuCounts.end())
      throw InvalidArgument("--trace-gpus", std::to_string(args.traceGpus) + " is not a GPU count of " + args.scenario);
    gpus = args.traceGpus;
  }
  return {entry, gpus};
}

void writeTable(std::ostream& out, const Scenario& scenario, const IterationPlan& plan, const ScalingResults& results) {
  out << "scenario  " << scenario.name << ": " << scenario.model.name() << " on " << scenario.gpu << ", batch "
      << scenario.batchPerGpu << " per GPU, " << scenario.topology.name << ", " << plan.buckets().size() << " buckets ("
      << fusionLine(scenario.fusion) << ")" << (scenario.overlapBackward ? ", overlapping backward" : ", after backward")
      << "\n";
  out << "effects   " << effectsLine(scenario) << "\n";
  out << "compute   " << formatSeconds(plan.workload().computeSeconds()) << " per iteration on one GPU\n";
  out << "baseline  efficiency against "
      << (scenario.baselineGpus == 1 ? std::string("one GPU alone")
                                     : "each algorithm's iteration at " + std::to_string(scenario.baselineGpus) + " GPUs")
      << "\n\n";
  out << "exposed   the iteration past the compute (communication, and stragglers where effects are on): of\n"
         "          it, latency is what zeroing every link's latency removes, bandwidth the rest\n";
  const bool ranged = !results.points.empty() && results.points.front().efficiencyRange;
  if (ranged)
    out << "range     efficiency with every sourced effect at the pessimistic and at the optimistic end of its range\n";
  out << "\n";
  char line[320];
  std::snprintf(line, sizeof line, "%6s  %-36s %12s %12s %11s %14s %12s %12s%s\n", "gpus", "algorithm", "iteration",
                "images/s", "efficiency", "exposed comm", "latency", "bandwidth", ranged ? "          range" : "");
  out << line;
  for (const ScalingPoint& point : results.points) {
    char range[48] = "";
    if (point.efficiencyRange)
      std::snprintf(range, sizeof range, "  %5.1f%% - %5.1f%%", 100 * point.efficiencyRange->first, 100 * point.efficiencyRange->second);
    std::snprintf(line, sizeof line, "%6d  %-36s %12s %12.1f %10.1f%% %14s %12s %12s%s\n", point.gpus, point.label.c_str(),
                  formatSeconds(point.iterationSeconds).c_str(), point.imagesPerSecond(), 100 * point.efficiency(),
                  formatSeconds(point.exposedCommunicationSeconds()).c_str(),
                  formatSeconds(point.exposedLatencySeconds.value_or(0)).c_str(),
                  formatSeconds(point.exposedBandwidthSeconds()).c_str(), range);
    out << line;
  }
}

void writeCsv(std::ostream& out, const ScalingResults& results) {
  out << "gpus,algorithm,iteration_s,images_per_s,efficiency,exposed_comm_s,compute_s,exposed_latency_s,exposed_bandwidth_s,"
         "efficiency_low,efficiency_high\n"
      << std::setprecision(9);
  for (const ScalingPoint& point : results.points) {
    out << point.gpus << ",\"" << point.label << "\"," << point.iterationSeconds << "," << point.imagesPerSecond()
        << "," << point.efficiency() << "," << point.exposedCommunicationSeconds() << "," << point.computeSeconds << ","
        << point.exposedLatencySeconds.value_or(0) << "," << point.exposedBandwidthSeconds() << ",";
    // Empty without --range.
    if (point.efficiencyRange) out << point.efficiencyRange->first << "," << point.efficiencyRange->second;
    else out << ",";
    out << "\n";
  }
}

int run(const Arguments& args) {
  if (args.json && args.csv) throw InvalidArgument("--csv", "choose one of --json and --csv");
  const Engine& engine = engineNamed(args.engine, "--engine");
  const Scenario scenario = loadScenario(args.scenario);
  std::optional<PythonPlotter> plotter;
  if (!args.plot.empty()) plotter = findPlotter(args.plot, "plot_scaling");  // before any simulation
  if (args.trace.empty() && (args.traceGpus != 0 || !args.traceAlgorithm.empty()))
    throw InvalidArgument(args.traceGpus != 0 ? "--trace-gpus" : "--trace-algorithm", "only with --trace FILE");
  const auto [tracedEntry, tracedGpus] = tracedPoint(scenario, args);
  if (args.share.empty() != args.shareOut.empty())
    throw InvalidArgument(args.share.empty() ? "--share-out" : "--share", "--share and --share-out go together");
  if (!args.share.empty() && !args.sweepValues.empty()) throw InvalidArgument("--sweep-values", "not with --share");
  const ScenarioSweep sweep(scenario, engine, {args.computeScale, args.range});
  const double bytesPerSimulation = sweep.requireMemory();
  if (!args.trace.empty()) sweep.requireTraceMemory(tracedEntry, tracedGpus);
  const int jobs = jobsThatFit(args.jobs, bytesPerSimulation);
  if (jobs < args.jobs)
    std::fprintf(stderr, "ddlsim: %d simulations at once would need about %s; running %d at a time\n", args.jobs,
                 formatByteCount(args.jobs * bytesPerSimulation).c_str(), jobs);
  const auto start = std::chrono::steady_clock::now();
  const SweepProgress progress = [&](std::size_t index, std::size_t total, const ScalingPoint& point) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > 1)
      std::fprintf(stderr, "ddlsim: [%zu/%zu] %s at %d GPUs (%.1f s)\n", index + 1, total, point.label.c_str(),
                   point.gpus, elapsed);
  };
  std::vector<std::size_t> simulations;
  const auto [shareIndex, shareCount] = args.share.empty() ? std::pair<std::size_t, std::size_t>{0, 1} : parseShare(args.share);
  for (std::size_t s = shareIndex; s < sweep.simulations(); s += shareCount) simulations.push_back(s);
  if (!args.share.empty()) {
    const std::vector<std::vector<double>> values = simulateSweep(sweep, simulations, jobs);
    writeOutput(args.shareOut, [&](std::ostream& out) { out << shareToJson(sweep.simulations(), simulations, values).dump() << "\n"; });
    return 0;
  }
  const ScalingResults results = sweep.results(args.sweepValues.empty() ? simulateSweep(sweep, simulations, jobs, progress)
                                                                        : valuesFromShares(args.sweepValues, sweep.simulations()));
  resultsToJson(results);  // whatever the format: a figure that is not finite is an internal error, not output
  writeOutput(args.out, [&](std::ostream& out) {
    if (args.json) {
      out << resultsToJson(results).dump(1) << "\n";
    } else if (args.csv) {
      writeCsv(out, results);
    } else {
      writeTable(out, scenario, sweep.plan(), results);
    }
  });
  if (!args.trace.empty()) {
    const IterationTimeline timeline = sweep.trace(tracedEntry, tracedGpus);
    writeOutput(args.trace, [&](std::ostream& out) { out << chromeTrace(timeline).dump() << "\n"; });
  }
  if (plotter) {
    try {
      plotWithPython(*plotter, resultsToJson(results), {"--scenario", args.scenario}, args.plot);
    } catch (const std::runtime_error& error) {
      std::fprintf(stderr, "ddlsim: %s\n", error.what());
      return 1;
    }
  }
  return 0;
}

}  // namespace

void addScenarioCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<Arguments>();
  app.add_option("scenario", args->scenario, "Scenario file to simulate (scenarios/*.json)")->check(readableFile());
  app.add_flag("--json", args->json, "Write the results as JSON ({\"points\": [...]})");
  app.add_flag("--csv", args->csv, "Write the results as CSV");
  app.add_option("--out", args->out, "Write to this file instead of standard output")->check(writableFile());
  app.add_option("--plot", args->plot,
                 "Also draw efficiency and images/s against GPUs, with the scenario's published points, into this "
                 ".png, .svg or .pdf (analysis/plot_scaling; needs matplotlib)")
      ->check(writableFile());
  app.add_option("--trace", args->trace,
                 "Also write one iteration of one point, every rank's compute phases and bucket allreduces, as a Chrome "
                 "trace (open it in ui.perfetto.dev or chrome://tracing)")
      ->check(writableFile());
  app.add_option("--trace-gpus", args->traceGpus, "The point --trace writes: this GPU count of the sweep (default: the largest)")
      ->check(CLI::Range(1, kMaxRanks));
  app.add_option("--trace-algorithm", args->traceAlgorithm,
                 "The point --trace writes: the first algorithm of this name in the scenario (default: the first)");
  app.add_option("--compute-scale", args->computeScale, "Multiply the model's compute times by this (as ddlrun train)")
      ->check(finiteIn(1e-6, 1000))
      ->capture_default_str();
  app.add_option("--jobs,-j", args->jobs,
                 "Run this many simulations at once, each in a process of its own (default: this machine's cores; fewer "
                 "where this machine's memory would not hold them); the output is the same bytes whatever it is")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--engine", args->engine, engineHelp())->capture_default_str();
  // What `mpirun -np K ddlsim SCENARIO` runs on each rank (sim/sweep/mpi_sweep_main.cpp); hidden from --help.
  app.add_option("--share", args->share, "Simulate only every COUNT-th simulation of the sweep from INDEX (INDEX/COUNT)")
      ->group("");
  app.add_option("--share-out", args->shareOut, "Write the share's values to this file instead of results")
      ->check(writableFile())
      ->group("");
  app.add_option("--sweep-values", args->sweepValues, "Take every simulation's values from these shares' files")
      ->check(readableFile())
      ->group("");
  app.add_flag("--range", args->range,
               "Also simulate each point with every effect the scenario gives as \"sourced\" at the pessimistic and at "
               "the optimistic end of its documented range (ddlsim effects), and report the efficiency between them");
  app.callback([&app, args, &exitCode] {
    if (!app.get_subcommands().empty()) return;
    if (args->scenario.empty()) throw InvalidArgument("scenario", "give a scenario file or a subcommand (see --help)");
    exitCode = run(*args);
  });
}

}  // namespace ddl
