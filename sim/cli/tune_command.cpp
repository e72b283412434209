#include "sim/cli/tune_command.hpp"

#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "algorithms/tuning/tuning_candidates.hpp"
#include "common/byte_sizes.hpp"
#include "common/cli_checks.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/output_file.hpp"
#include "scenarios/scenario.hpp"
#include "sim/cli/progress_line.hpp"
#include "sim/cli/python_plot.hpp"
#include "sim/cli/topology_flags.hpp"
#include "sim/engine/switch_placement.hpp"
#include "sim/registered_engines.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/scenario_sweep.hpp"
#include "sim/sweep/simulation_memory.hpp"
#include "topologies/platform_with_switches.hpp"

namespace ddl {
namespace {

struct TuneArguments {
  TopologyFlags topology;
  int gpus = 0;
  std::string collective = "allreduce";
  std::string minBytes = "4K";
  std::string maxBytes = "256M";
  double factor = 4;
  int elementBytes = 4;
  std::vector<std::string> algorithms;
  std::string engine = "auto";
  int jobs = defaultJobs();
  bool json = false;
  std::string out;
  std::string plot;
};

// The candidates that can run every size: a chunk size that would cut the largest buffer into more steps
// than a program holds drops its candidate, which then cannot choose any size; so do NVLS's where its
// switches cannot sit one per node (nccl-nvls across nodes), refused where --algorithms names it alone.
std::vector<AlgorithmChoice> runnableCandidates(const TuneArguments& args, CollectiveKind kind, const Cluster& cluster,
                                                std::int64_t largest) {
  const ClusterShape shape = clusterShapeOf(cluster);
  const bool switchesReduce = !cluster.topology().node.multicastSwitch.empty();
  std::vector<AlgorithmChoice> runnable;
  std::optional<std::string> misfit;
  for (AlgorithmChoice& candidate : tuningCandidates(kind, args.gpus, shape, args.algorithms, switchesReduce)) {
    try {
      const Schedule schedule =
          makeSchedule(*candidate.algorithm, {kind, args.gpus, largest / args.elementBytes, args.elementBytes}, candidate.options);
      if (const auto why = switchMisfit(schedule.ranks(), schedule.spec().switches, schedule.description(), cluster)) {
        misfit = why->reason;
        continue;
      }
    } catch (const InvalidArgument&) {
      continue;
    }
    runnable.push_back(std::move(candidate));
  }
  if (runnable.empty() && misfit) throw InvalidArgument("--algorithms", *misfit);
  if (runnable.empty())
    throw InvalidArgument("--algorithms", "no configuration of these algorithms runs on " + std::to_string(args.gpus) + " ranks");
  return runnable;
}

void writeText(std::ostream& out, const TuningTable& table, const Cluster& cluster, const Engine& engine) {
  out << "tune  " << toString(table.collective) << " on " << table.gpus << " GPUs of " << table.topology << " ("
      << cluster.nodes() << " nodes): " << table.candidates.size() << " configurations, simulated by the " << engine.name()
      << " engine\n";
  char line[320];
  std::snprintf(line, sizeof line, "%14s  %-50s %10s  %-50s %8s\n", "bytes", "best", "time", "runner-up", "margin");
  out << line;
  for (std::size_t s = 0; s < table.sizes.size(); ++s) {
    const TunedCandidate& best = table.candidates[table.best(s)];
    const TunedCandidate& second = table.candidates[table.runnerUp(s)];
    std::snprintf(line, sizeof line, "%14lld  %-50s %10s  %-50s %7.1f%%\n", static_cast<long long>(table.sizes[s]),
                  best.choice.label().c_str(), formatSeconds(best.seconds[s]).c_str(), second.choice.label().c_str(),
                  100 * table.margin(s));
    out << line;
  }
}

int runTune(const TuneArguments& args) {
  const auto kind = parseCollectiveKind(args.collective);
  if (!kind) throw InvalidArgument("--collective", "'" + args.collective + "' is not allreduce, reduce-scatter or all-gather");
  const std::vector<std::int64_t> sizes = sweepByteSizes(parseByteSize(args.minBytes, "--min-bytes"),
                                                         parseByteSize(args.maxBytes, "--max-bytes"), args.factor,
                                                         args.elementBytes);
  const Engine& engine = engineNamed(args.engine, "--engine");
  std::optional<PythonPlotter> plotter;
  if (!args.plot.empty()) plotter = findPlotter(args.plot, "plot_tuning");  // before any simulation
  const Cluster cluster(args.topology.load(), args.gpus, args.topology.placement());
  requireDistinctOutputs({{"--out", args.out}, {"--plot", args.plot}});  // apart, and not onto the topology just read
  const std::vector<AlgorithmChoice> candidates = runnableCandidates(args, *kind, cluster, sizes.back());

  // Every candidate at the largest size must fit this machine, and as many at once as run together.
  double mostBytes = 0;
  for (const AlgorithmChoice& candidate : candidates) {
    const Schedule largest =
        makeSchedule(*candidate.algorithm, {*kind, args.gpus, sizes.back() / args.elementBytes, args.elementBytes}, candidate.options);
    const CollectivePlatform on(cluster, largest);
    const int netpoints = netpointsOf(cluster) + largest.spec().switches;
    const int held = engine.ranksHeld(largest, on.platform());
    requireSimulationMemory(largest, netpoints, "--gpus",
                            "simulating " + largest.description() + " on " + std::to_string(args.gpus) + " GPUs", held,
                            engine.world());
    mostBytes = std::max(mostBytes, estimatedSimulationBytes(largest, netpoints, held, engine.world()));
  }
  const int jobs = jobsThatFit(args.jobs, mostBytes);

  // One task per candidate, every size in it; each in a process of its own, as a scenario's points.
  std::vector<std::function<std::vector<double>()>> tasks;
  for (const AlgorithmChoice& candidate : candidates)
    tasks.push_back([&, candidate] {
      std::vector<double> seconds;
      for (std::int64_t bytes : sizes) {
        const Schedule schedule =
            makeSchedule(*candidate.algorithm, {*kind, args.gpus, bytes / args.elementBytes, args.elementBytes}, candidate.options);
        seconds.push_back(engine.collective(schedule, CollectivePlatform(cluster, schedule).platform()).seconds);
      }
      return seconds;
    });
  std::fprintf(stderr, "ddlsim tune: %zu configurations x %zu sizes, %d at a time\n", candidates.size(), sizes.size(), jobs);
  ProgressLine line("ddlsim tune", candidates.size());
  std::size_t done = 0;
  const std::vector<std::vector<double>> seconds =
      inFreshProcesses(tasks, jobs, [&](std::size_t task, const std::vector<double>&) { line.ended(++done, candidates[task].label()); });

  TuningTable table;
  table.run = describeRun("ddlsim", "simulated");
  table.run.engine = std::string(engine.name());
  table.topology = cluster.topology().name;
  table.gpus = args.gpus;
  table.collective = *kind;
  table.elementBytes = args.elementBytes;
  table.sizes = sizes;
  for (std::size_t c = 0; c < candidates.size(); ++c) table.candidates.push_back({candidates[c], seconds[c]});
  const nlohmann::json document = tuningTableToJson(table);
  writeOutput(args.out, [&](std::ostream& out) {
    if (args.json) out << document.dump(1) << "\n";
    else writeText(out, table, cluster, engine);
  });
  if (plotter) plotWithPython(*plotter, document, {}, args.plot);
  return 0;
}

}  // namespace

void addTuneCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<TuneArguments>();
  CLI::App* command = app.add_subcommand(
      "tune", "Simulate every algorithm and its parameters at each size on a topology, and tabulate the best per size.");
  command->add_option("--topology", args->topology.topology(), "Topology: a name under topologies/ or a file")->required();
  args->topology.addTo(command);
  command->add_option("--gpus", args->gpus, "Number of GPUs (ranks)")->required()->check(CLI::Range(1, kMaxRanks));
  command->add_option("--collective", args->collective, "allreduce, reduce-scatter or all-gather")->capture_default_str();
  command->add_option("-b,--min-bytes", args->minBytes, "Sizes from this ...")->capture_default_str();
  command->add_option("-e,--max-bytes", args->maxBytes, "... to this ...")->capture_default_str();
  command->add_option("-f,--factor", args->factor, "... multiplying by this")->check(finiteIn(1, 1024))->capture_default_str();
  command->add_option("--element-bytes", args->elementBytes, "Element size in bytes, 1 to 99 (the table names the type \"N-byte\")")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  command->add_option("--algorithms", args->algorithms, "Only these algorithms (comma-separated; default: every one)")
      ->delimiter(',');
  command->add_option("--jobs,-j", args->jobs,
                      "Simulate this many configurations at once, each in a process of its own (default: this machine's "
                      "cores; fewer where memory would not hold them); the table is the same bytes whatever it is")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command->add_option("--engine", args->engine, engineHelp())->capture_default_str();
  command->add_flag("--json", args->json, "Write the tuning table as JSON: what --algorithm auto --tuning FILE reads");
  command->add_option("--out", args->out, "Write to this file instead of standard output")->check(writableFile());
  command->add_option("--plot", args->plot,
                      "Also draw every configuration's time against size, the best marked, into this .png, .svg or .pdf")
      ->check(writableFile());
  command->footer(
      "Configurations: each algorithm without options; double-binary-tree with 128 KiB, 512 KiB and 2 MiB chunks;\n"
      "ddl on every grid of 2 or 3 sizes in every order, and the topology's own; torus-2d on every WxH and\n"
      "hierarchical on every node size, each with every composable allreduce inside. Each runs alone, every rank\n"
      "starting together, timed by its slowest rank (ddlsim collective -a 3). ddlrun's --piece-bytes is not among them: the simulator\n"
      "does not cut steps into pieces.\n\n"
      "Example:\n"
      "  ddlsim tune --topology minsky-p100-ib-edr --gpus 256 --json --out minsky-256.json\n"
      "  ddlsim collective --algorithm auto --tuning minsky-256.json --topology minsky-p100-ib-edr --gpus 256 -b 4K -e 256M");
  command->callback([args, &exitCode] { exitCode = runTune(*args); });
}

}  // namespace ddl
