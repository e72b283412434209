#include "sim/cli/scenario_command.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "algorithms/io/results_json.hpp"
#include "algorithms/io/trace_json.hpp"
#include "common/cli_checks.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/limits.hpp"
#include "common/machine_memory.hpp"
#include "common/output_file.hpp"
#include "scenarios/scenario_effects.hpp"
#include "sim/cli/progress_line.hpp"
#include "sim/cli/python_plot.hpp"
#include "sim/cli/scenario_results_writer.hpp"
#include "sim/cli/sensitivity_report.hpp"
#include "sim/registered_engines.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/scenario_sweep.hpp"
#include "sim/sweep/sensitivity.hpp"

namespace ddl {
namespace {

// At 100,000 samples the 5th percentile's own level is known to within ±0.07% (its binomial standard error):
// more change nothing a reader sees, and each sample is a simulation per point.
constexpr int kMostSamples = 100'000;
// Each simulation runs in a fresh process (sim/sweep/fresh_process.hpp), and every process of a split
// sweep lists them all: a sweep of more is simulated in parts (--gpus), or with fewer samples.
constexpr std::size_t kMostSimulations = 1'000'000;
// --sensitivity's samples per input without --samples: each input's 5th and 95th percentile from 32 draws
// lie between its 2nd and 3rd and its 30th and 31st order statistics, enough to rank the inputs; a finer
// swing takes --samples.
constexpr int kSensitivitySamples = 32;

struct ScenarioArguments {
  std::string scenario;
  bool json = false;
  bool csv = false;
  std::string out;
  std::string plot;
  std::string trace;
  int traceGpus = 0;
  std::string traceAlgorithm;
  double computeScale = 1;
  std::string jobTimeFactors;  // replaces the scenario's $.effects.job_time_factors
  int samples = 0;
  bool sensitivity = false;
  bool range = false;  // the flag --samples replaced: refused, saying so
  bool dryRun = false;
  int jobs = defaultJobs();
  std::string engine = "auto";
  std::vector<int> gpus;  // part of the sweep: these of its GPU counts
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

// Which entry of the scenario --trace-algorithm names (the first of that name; the first entry by default),
// and which GPU count --trace-gpus gives (the largest of the sweep by default).
std::pair<std::size_t, int> tracedPoint(const Scenario& scenario, const ScenarioArguments& args) {
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

// The part of the sweep to simulate: with --trace the traced point alone (and its baseline), which is all
// the trace needs; with --gpus those of the sweep's GPU counts; else the whole sweep. `traced` is the
// traced point (entry, GPU count) and becomes the part's.
Scenario partOfSweep(const Scenario& scenario, const ScenarioArguments& args, std::pair<std::size_t, int>& traced) {
  Scenario part = scenario;
  if (!args.gpus.empty()) {
    part.gpuCounts.clear();
    for (int gpus : args.gpus) {
      if (std::find(scenario.gpuCounts.begin(), scenario.gpuCounts.end(), gpus) == scenario.gpuCounts.end())
        throw InvalidArgument("--gpus", std::to_string(gpus) + " is not a GPU count of " + args.scenario + " ($.gpus)");
      if (std::find(part.gpuCounts.begin(), part.gpuCounts.end(), gpus) == part.gpuCounts.end()) part.gpuCounts.push_back(gpus);
    }
  }
  if (!args.trace.empty()) {
    if (!args.gpus.empty() && std::find(part.gpuCounts.begin(), part.gpuCounts.end(), traced.second) == part.gpuCounts.end())
      throw InvalidArgument("--trace-gpus", std::to_string(traced.second) + " is not among --gpus");
    part.algorithms = {scenario.algorithms.at(traced.first)};
    part.gpuCounts = {traced.second};
    traced.first = 0;
  }
  return part;
}

// The flags --sensitivity does not take, refused before anything else is looked at.
void requireSensitivityFlags(const ScenarioArguments& args) {
  if (args.json || args.csv)
    throw InvalidArgument(args.json ? "--json" : "--csv", "--sensitivity writes a table, and with --plot a tornado");
  if (!args.trace.empty() || args.traceGpus != 0 || !args.traceAlgorithm.empty() || !args.share.empty() ||
      !args.shareOut.empty() || !args.sweepValues.empty() || args.dryRun)
    throw InvalidArgument("--sensitivity", "not with --trace, --trace-gpus, --trace-algorithm, --share, --share-out, "
                                           "--sweep-values or --dry-run");
  if (args.gpus.size() > 1) throw InvalidArgument("--gpus", "--sensitivity looks at one GPU count: give one");
}

// ddlsim SCENARIO --sensitivity: one point's inputs, one at a time (sim/sweep/sensitivity.hpp).
int runSensitivity(const Scenario& part, const Engine& engine, const ScenarioArguments& args) {
  const int samples = args.samples > 0 ? args.samples : kSensitivitySamples;
  // Something to vary, and at most as many simulations as one sweep may take: per input and all together,
  // each algorithm's point and its baseline, each its central run, its run without latency and the samples.
  const std::size_t sweeps = uncertainInputs(part).size() + 1;
  const std::size_t simulations = sweeps * part.algorithms.size() * (part.baselineGpus > 1 ? 2 : 1) *
                                  (2 + static_cast<std::size_t>(samples));
  if (simulations > kMostSimulations)
    throw InvalidArgument("--samples", std::to_string(samples) + " samples per input make --sensitivity up to " +
                                           std::to_string(simulations) + " simulations: at most " +
                                           std::to_string(kMostSimulations));
  std::optional<PythonPlotter> plotter;
  if (!args.plot.empty()) plotter = findPlotter(args.plot, "plot_sensitivity");
  const int gpus = *std::max_element(part.gpuCounts.begin(), part.gpuCounts.end());
  const Sensitivity sensitivity = sensitivityOf(part, engine, gpus, samples, args.computeScale, args.jobs);
  writeSensitivityTable(args.out, sensitivity);
  if (plotter) {
    try {
      plotWithPython(*plotter, sensitivityToJson(sensitivity), {}, args.plot);
    } catch (const std::runtime_error& error) {
      std::fprintf(stderr, "ddlsim: %s\n", error.what());
      return 1;
    }
  }
  return 0;
}

int runScenario(const ScenarioArguments& args) {
  if (args.json && args.csv) throw InvalidArgument("--csv", "choose one of --json and --csv");
  requireDistinctOutputs({{"--out", args.out}, {"--plot", args.plot}, {"--trace", args.trace}, {"--share-out", args.shareOut}});
  const Engine& engine = engineNamed(args.engine, "--engine");
  if (!args.jobTimeFactors.empty() && args.samples == 0 && !args.sensitivity)
    throw InvalidArgument("--job-time-factors", "only with --samples N or --sensitivity: the central run is the job the "
                                                "profile was measured in, and only the samples draw another");
  const Scenario scenario = [&args] {
    Scenario loaded = loadScenario(args.scenario);
    if (!args.jobTimeFactors.empty()) useJobTimeFactors(loaded, args.jobTimeFactors, "--job-time-factors");
    return loaded;
  }();
  if (args.range)
    throw InvalidArgument("--range", "replaced by --samples N: a Monte Carlo over the priors of the scenario's sourced "
                                     "effects, with the 5th to 95th percentile of each point (ddlsim --help)");
  if (args.sensitivity) {
    requireSensitivityFlags(args);
    std::pair<std::size_t, int> untraced{0, 0};
    return runSensitivity(partOfSweep(scenario, args, untraced), engine, args);
  }
  std::optional<PythonPlotter> plotter;
  if (!args.plot.empty()) plotter = findPlotter(args.plot, "plot_scaling");  // before any simulation
  if (args.trace.empty() && (args.traceGpus != 0 || !args.traceAlgorithm.empty()))
    throw InvalidArgument(args.traceGpus != 0 ? "--trace-gpus" : "--trace-algorithm", "only with --trace FILE");
  std::pair<std::size_t, int> traced = tracedPoint(scenario, args);
  const Scenario part = partOfSweep(scenario, args, traced);
  const auto [tracedEntry, tracedGpus] = traced;
  if (args.share.empty() != args.shareOut.empty())
    throw InvalidArgument(args.share.empty() ? "--share-out" : "--share", "--share and --share-out go together");
  if (!args.share.empty() && !args.sweepValues.empty()) throw InvalidArgument("--sweep-values", "not with --share");
  const ScenarioSweep sweep(part, engine, {args.computeScale, args.samples});
  if (sweep.simulations() > kMostSimulations)
    throw InvalidArgument("--samples", std::to_string(args.samples) + " samples make the sweep " +
                                           std::to_string(sweep.simulations()) + " simulations, each a process of its own: " +
                                           "at most " + std::to_string(kMostSimulations) +
                                           " in one sweep: fewer samples, or part of the sweep at a time (--gpus)");
  const double bytesPerSimulation = sweep.requireMemory();
  if (!args.trace.empty()) sweep.requireTraceMemory(tracedEntry, tracedGpus);
  const int jobs = jobsThatFit(args.jobs, bytesPerSimulation);
  if (jobs < args.jobs)
    std::fprintf(stderr, "ddlsim: %d simulations at once would need about %s; running %d at a time\n", args.jobs,
                 formatBytes(args.jobs * bytesPerSimulation).c_str(), jobs);
  if (args.dryRun) {
    std::printf("ddlsim: %s: %zu simulations of %zu points, each needing up to about %s, %d at a time\n", args.scenario.c_str(),
                sweep.simulations(), sweep.points(), formatBytes(bytesPerSimulation).c_str(), jobs);
    return 0;
  }
  ProgressLine line("ddlsim", sweep.points());
  const SweepProgress progress = [&](std::size_t index, std::size_t, const ScalingPoint& point) {
    line.ended(index + 1, point.label + " at " + std::to_string(point.gpus) + " GPUs");
  };
  std::vector<std::size_t> simulations;
  const auto [shareIndex, shareCount] = args.share.empty() ? std::pair<std::size_t, std::size_t>{0, 1} : parseShare(args.share);
  for (std::size_t s = shareIndex; s < sweep.simulations(); s += shareCount) simulations.push_back(s);
  if (!args.share.empty()) {
    writeShareValues(args.shareOut, sweep, simulations, simulateSweep(sweep, simulations, jobs));
    return 0;
  }
  const ScalingResults results = sweep.results(args.sweepValues.empty() ? simulateSweep(sweep, simulations, jobs, progress)
                                                                        : readShareValues(args.sweepValues, sweep));
  const nlohmann::json document = resultsToJson(results);
  // The trace, like the results, is simulated before anything is written.
  std::optional<IterationTimeline> timeline;
  if (!args.trace.empty()) timeline = sweep.trace(tracedEntry, tracedGpus);
  writeScenarioResults(args.out, args.json ? ResultsFormat::Json : args.csv ? ResultsFormat::Csv : ResultsFormat::Table, part,
                       sweep.plan(), results, document);
  if (timeline) writeOutput(args.trace, [&](std::ostream& out) { out << chromeTrace(*timeline).dump() << "\n"; });
  if (plotter) {
    try {
      plotWithPython(*plotter, document, {"--scenario", args.scenario}, args.plot);
    } catch (const std::runtime_error& error) {
      std::fprintf(stderr, "ddlsim: %s\n", error.what());
      return 1;
    }
  }
  return 0;
}

}  // namespace

void addScenarioCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<ScenarioArguments>();
  app.add_option("scenario", args->scenario, "Scenario file to simulate (scenarios/*.json)")->check(readableFile());
  app.add_flag("--json", args->json, "Write the results as JSON ({\"points\": [...]})");
  app.add_flag("--csv", args->csv, "Write the results as CSV");
  app.add_option("--out", args->out, "Write to this file instead of standard output")->check(writableFile());
  app.add_option("--plot", args->plot,
                 "Also draw efficiency and images/s against GPUs, with the scenario's published points, into this "
                 ".png, .svg or .pdf (analysis/plot_scaling; needs matplotlib)")
      ->check(writableFile());
  app.add_option("--gpus", args->gpus,
                 "Simulate only these of the scenario's GPU counts (comma-separated), each with its baseline")
      ->delimiter(',')
      ->check(CLI::Range(1, kMaxRanks));
  app.add_option("--trace", args->trace,
                 "Simulate one point only (--trace-gpus, --trace-algorithm), and write one iteration of it, every rank's "
                 "compute phases and bucket allreduces, as a Chrome trace (open it in ui.perfetto.dev or chrome://tracing)")
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
  // A sweep split by hand (a Slurm job array: scripts/slurm/ddlsim-sweep.sbatch), and what `mpirun -np K
  // ddlsim SCENARIO` runs on each rank (sim/sweep/mpi_sweep_main.cpp).
  app.add_option("--share", args->share,
                 "Simulate only the sweep's simulations INDEX, INDEX + COUNT, ... (INDEX/COUNT), into --share-out")
      ->group("Splitting a sweep");
  app.add_option("--share-out", args->shareOut, "Write the share's values to this file instead of results")
      ->check(writableFile())
      ->group("Splitting a sweep");
  app.add_option("--sweep-values", args->sweepValues,
                 "Write the results from these shares' files instead of simulating: every share of the same sweep (the "
                 "same scenario and options), each simulation in one")
      ->check(readableFile())
      ->group("Splitting a sweep");
  app.add_flag("--dry-run", args->dryRun,
               "Check the scenario and the options, and say how many simulations the sweep takes and the memory each "
               "needs, without simulating");
  app.add_option("--samples", args->samples,
                 "Also simulate each point N times, each a Monte Carlo sample of the priors of the effects the scenario "
                 "gives as \"sourced\" (ddlsim effects) and of the seeds of its per-rank draws, and report the median and "
                 "the 5th and 95th percentile of iteration time, images/s and efficiency (each sample's efficiency "
                 "against its baseline under the same draw); the same seed gives the same bytes")
      ->check(CLI::Range(1, kMostSamples));
  app.add_option("--job-time-factors", args->jobTimeFactors,
                 "With --samples or --sensitivity, draw how fast each sample's job runs against the job the model's "
                 "profile was measured in from this machine's measured jobs: a name under models/job-speed/ "
                 "(analysis/measure_job_speed) or a file; replaces the scenario's effects.job_time_factors");
  app.add_flag("--sensitivity", args->sensitivity,
               "Instead of the sweep, for one GPU count (--gpus, default the largest): vary each uncertain input alone "
               "over its prior (--samples per input, default 32), the others at their central values, and print each "
               "algorithm's efficiency swing per input, the widest first (--plot: a tornado)");
  // Before 2026-12-05, two corner runs; kept only to say what replaced it.
  app.add_flag("--range", args->range, "Replaced by --samples")->group("");
  app.callback([&app, args, &exitCode] {
    if (!app.get_subcommands().empty()) return;
    if (args->scenario.empty()) throw InvalidArgument("scenario", "give a scenario file or a subcommand (see --help)");
    exitCode = runScenario(*args);
  });
}

}  // namespace ddl
