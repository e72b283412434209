#include "sim/cli/collective_command.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>

#include <nlohmann/json.hpp>

#include "algorithms/cli/algorithm_flags.hpp"
#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/collective_sweep_json.hpp"
#include "algorithms/tuning/nccl_protocol.hpp"
#include "algorithms/io/nccl_tests_table.hpp"
#include "algorithms/io/schedule_file.hpp"
#include "common/byte_sizes.hpp"
#include "common/cli_checks.hpp"
#include "common/invalid_argument.hpp"
#include "common/output_file.hpp"
#include "sim/cli/topology_flags.hpp"
#include "scenarios/nccl_job.hpp"
#include "sim/engine/platform_under_protocol.hpp"
#include "sim/engine/switch_placement.hpp"
#include "sim/registered_engines.hpp"
#include "sim/sweep/simulation_memory.hpp"
#include "topologies/platform_with_switches.hpp"

namespace ddl {
namespace {

struct CollectiveArguments {
  AlgorithmFlags algorithm;
  TopologyFlags topology;
  int gpus = 0;
  std::string bytes = "102228128";  // ResNet-50's fp32 gradients (docs/reference/README.md)
  std::string minBytes;
  std::string maxBytes;
  double factor = 2;
  int elementBytes = 4;
  int runs = 1;
  bool json = false;
  std::string configuration;
  std::string out;
  std::string scheduleFile;
  std::string engine = "auto";
  std::string protocol;  // empty: the topology as calibrated (Simple's latencies, no base latency)
  int averageFlag = static_cast<int>(kNcclTestsAverage);
  CLI::App* command = nullptr;
  RankAverage average() const { return static_cast<RankAverage>(averageFlag); }
};

// A run's time as nccl-tests' -a reports it: each rank's time per run (from the common start to its end of the
// last run, over the runs), then rank 0's, or the mean, least or most over the ranks.
double timeOverRanks(const CollectiveTiming& timing, int runs, RankAverage average) {
  const std::vector<double>& ranks = timing.rankSeconds;
  switch (average) {
    case RankAverage::Rank0: return ranks.front() / runs;
    case RankAverage::Mean: return std::accumulate(ranks.begin(), ranks.end(), 0.0) / static_cast<double>(ranks.size()) / runs;
    case RankAverage::Min: return *std::min_element(ranks.begin(), ranks.end()) / runs;
    case RankAverage::Max: return timing.seconds;
  }
  return timing.seconds;
}

// A schedule that reduces in switches (nccl-nvls, nccl-nvls-tree, or a --schedule file with "switches") needs
// the nodes' multicast switch, and one switch per node whose GPUs are the ranks it serves, in order: switch n
// reaches only its own node's GPUs. NCCL runs NVLS under Simple alone (src/graph/tuning.cc). InvalidArgument
// naming the flag otherwise: `source` is the one that chose the schedule (--algorithm, or --schedule for a file).
void requireSwitchesFit(const Schedule& schedule, const Cluster& cluster, std::optional<Protocol> protocol, const std::string& source) {
  if (schedule.spec().switches == 0) return;
  if (protocol && *protocol != Protocol::Simple)
    throw InvalidArgument("--protocol", schedule.description() + " runs under NCCL's Simple protocol only, as NCCL runs NVLS, not " +
                                            std::string(toString(*protocol)));
  const std::optional<SwitchMisfit> misfit = switchMisfit(schedule.ranks(), schedule.spec().switches, schedule.description(), cluster);
  if (!misfit) return;
  using What = SwitchMisfit::What;
  const std::string field = source == "--schedule" || misfit->what == What::NoMulticastSwitch ? source
                            : misfit->what == What::NotOnePerNode && schedule.spec().switches == 1 ? "--gpus"
                                                                                                   : "--ranks-per-node";
  throw InvalidArgument(field, misfit->reason);
}

// Runs `schedule` on the cluster, under `costs` (a protocol's) where given, and with the nodes' switches where
// the schedule reduces in them.
CollectiveTiming simulateOn(const Engine& engine, const Schedule& schedule, const Cluster& cluster,
                            const std::optional<ProtocolCosts>& costs, int runs) {
  const CollectivePlatform on(cluster, schedule);
  const PlatformDescription& platform = on.platform();
  if (!costs) return engine.collective(schedule, platform, runs);
  return engine.collective(schedule, PlatformUnderProtocol(platform, *costs), runs);
}

// The table's run (algorithms/io/nccl_tests_table.hpp): the sweep's parameters, what was simulated on which
// engine, and each simulated rank as a device, up to a few (nccl-tests lists every GPU; 16,384 lines say
// nothing more).
NcclTestsRun tableRun(const CollectiveArguments& args, const std::vector<std::int64_t>& sizes, const CollectiveSweep& sweep,
                      const Cluster& cluster, const Engine& engine) {
  NcclTestsRun run;
  run.program = "ddlsim collective";
  run.minBytes = sizes.front();
  run.maxBytes = sizes.back();
  run.factor = args.factor;
  run.warmup = 0;
  run.iterations = args.runs;
  run.validation = false;
  run.comments = {"ddlsim: " + sweep.label + " " + sweep.collective + " on " + std::to_string(args.gpus) + " GPUs of " +
                      cluster.topology().name + " (" + std::to_string(cluster.nodes()) + " nodes), simulated by the " +
                      std::string(engine.name()) + " engine; each time the " + std::string(toString(args.average())) +
                      " over the ranks (-a " + std::to_string(args.averageFlag) + ")" +
                      (sweep.protocol.empty() ? "" : ", under NCCL's " + sweep.protocol + " protocol"),
                  "ddlsim: the schedules run in place: no out-of-place half, and nothing to check (#wrong N/A)"};
  constexpr int kRanksListed = 16;
  for (Rank rank = 0; rank < args.gpus && rank < kRanksListed; ++rank) {
    const Cluster::Location at = cluster.locate(rank);
    char text[256];
    std::snprintf(text, sizeof text, "Pid %6d on %10s device %2d [simulated] %s", 0, ("node" + std::to_string(at.node)).c_str(),
                  at.gpu, cluster.topology().node.gpuModel.c_str());
    run.devices.push_back(text);
  }
  if (args.gpus > kRanksListed) run.comments.push_back("ddlsim: the first " + std::to_string(kRanksListed) + " of " +
                                                        std::to_string(args.gpus) + " ranks are listed");
  return run;
}

// The sizes to simulate: --bytes alone, or --min-bytes to --max-bytes by --factor as ddlrun bench does.
std::vector<std::int64_t> sizesOf(const CollectiveArguments& args) {
  const bool sweep = !args.minBytes.empty() || !args.maxBytes.empty();
  if (!sweep) {
    const std::int64_t bytes = parseByteSize(args.bytes, "--bytes");
    if (bytes % args.elementBytes != 0)
      throw InvalidArgument("--bytes", std::to_string(bytes) + " is not a whole number of " +
                                           std::to_string(args.elementBytes) + "-byte elements");
    return {bytes};
  }
  if (args.command->count("--bytes")) throw InvalidArgument("--bytes", "give --bytes or --min-bytes/--max-bytes, not both");
  const std::int64_t low = parseByteSize(args.minBytes.empty() ? args.maxBytes : args.minBytes, "--min-bytes");
  const std::int64_t high = parseByteSize(args.maxBytes.empty() ? args.minBytes : args.maxBytes, "--max-bytes");
  return sweepByteSizes(low, high, args.factor, args.elementBytes);
}

// --schedule FILE: the file gives the algorithm, the ranks, the size and the element size.
Schedule loadScheduleFile(CollectiveArguments& args) {
  args.algorithm.requireNoneGiven("--schedule");
  for (const char* option : {"--bytes", "--min-bytes", "--max-bytes", "--factor", "--element-bytes"})
    if (args.command->count(option)) throw InvalidArgument(option, "cannot be combined with --schedule: the file gives the size");
  Schedule schedule = loadVerifiedSchedule(args.scheduleFile, "--schedule");
  if (args.command->count("--gpus") && args.gpus != schedule.ranks())
    throw InvalidArgument("--gpus", std::to_string(args.gpus) + ", but " + args.scheduleFile + " is a schedule for " +
                                        std::to_string(schedule.ranks()) + " ranks");
  args.gpus = schedule.ranks();
  args.elementBytes = schedule.spec().elementBytes;
  return schedule;
}

int runCollective(CollectiveArguments& args) {
  std::optional<Schedule> file;
  if (!args.scheduleFile.empty()) file.emplace(loadScheduleFile(args));
  if (!args.command->count("--gpus") && !file) throw InvalidArgument("--gpus", "required");
  const CollectiveKind kind = file ? file->spec().kind : args.algorithm.collective();
  // All-gather and reduce-scatter at the sizes nccl-tests (and ddlrun bench) runs: whole 16-byte blocks per rank.
  const std::vector<std::int64_t> sizes = file ? std::vector<std::int64_t>{file->spec().elements * file->spec().elementBytes}
                                               : ncclTestsSizes(kind, sizesOf(args), args.elementBytes, args.gpus);
  if (sizes.empty())
    throw InvalidArgument("--max-bytes", "no size of the sweep holds a 16-byte block for each of " + std::to_string(args.gpus) +
                                             " GPUs, as nccl-tests' " + std::string(toString(kind)) + " needs");
  const bool tuned = !file && args.algorithm.tuned();
  const bool nccl = !file && args.algorithm.ncclChosen();
  // One algorithm for every size, unless a tuning table or NCCL's tuning model chooses per size.
  const std::optional<AlgorithmChoice> fixed =
      file || tuned || nccl ? std::nullopt
                            : std::optional<AlgorithmChoice>(AlgorithmChoice{&args.algorithm.algorithm(), args.algorithm.options()});
  const Engine& engine = engineNamed(args.engine, "--engine");
  const Cluster cluster(args.topology.load(), args.gpus, args.topology.placement());
  // --protocol runs every size under it (with nccl: NCCL_PROTO, the only protocol NCCL may choose). Without
  // it a fixed algorithm runs on the topology as calibrated, which is Simple's links without its base latency.
  const std::optional<Protocol> named =
      args.protocol.empty() ? std::nullopt : std::optional<Protocol>(parseProtocol(args.protocol, "--protocol"));
  std::optional<NcclJob> ncclJob;
  if (nccl) {
    if (args.topology.placement() != Placement::Packed)
      throw InvalidArgument("--placement", "--algorithm nccl takes ranks packed onto their nodes, as NCCL's rings and trees "
                                           "number them");
    try {
      ncclJob = ncclJobOf(cluster.topology(), args.gpus, NvlsUse::WhereNcclRunsIt);
    } catch (const InvalidArgument& error) {
      throw InvalidArgument("--gpus", error.message());
    }
  }
  if (tuned) args.algorithm.requireTuningFits(kind, args.gpus, "--gpus", cluster.topology().name, args.elementBytes);

  // What runs at each size: the schedule, the protocol it runs under (none: the topology as calibrated), and
  // what a tuning table or NCCL chose.
  // Under a protocol, NCCL's tree pays its tree's per-hop latencies, and every algorithm its tree's network
  // latency where each node holds one rank (nccl_protocol.hpp).
  const bool onePerNode = cluster.nodes() > 1 && cluster.ranksOnBusiestNode() == 1;
  struct Planned {
    Schedule schedule;
    std::optional<Protocol> protocol;
    std::string chosen;
    const AlgorithmDefinition* algorithm = nullptr;  // none for a schedule file

    std::optional<ProtocolCosts> costs(bool onePerNode) const {
      if (!protocol) return std::nullopt;
      const bool tree = algorithm && algorithm->costedAsNcclTree;
      return costsOf(*protocol, tree ? NcclLatencyRow::Tree : NcclLatencyRow::Ring, onePerNode);
    }
  };
  const auto plan = [&](std::int64_t bytes) -> Planned {
    const CollectiveSpec spec{kind, args.gpus, bytes / args.elementBytes, args.elementBytes};
    if (file) return {*file, named, "", nullptr};
    if (nccl) {
      const NcclChoice choice = ncclChoice(*ncclJob, kind, static_cast<double>(bytes), named);
      return {makeSchedule(*choice.algorithm.algorithm, spec, choice.algorithm.options), choice.protocol, choice.label(),
              choice.algorithm.algorithm};
    }
    if (tuned) {
      const AlgorithmChoice choice = args.algorithm.choiceFor(static_cast<double>(bytes));
      return {args.algorithm.schedule(spec, "--gpus"), named, choice.label(), choice.algorithm};
    }
    return {args.algorithm.schedule(spec, "--gpus"), named, "", &args.algorithm.algorithm()};
  };
  // Bad options, and a case too large for this machine, fail before any output: at the largest size, and
  // where a table or NCCL chooses at every size, whose choice may hold more steps than the largest's (a
  // ring at a small size, halving-doubling at the largest).
  for (std::size_t s = tuned || nccl ? 0 : sizes.size() - 1; s < sizes.size(); ++s) {
    const Planned planned = plan(sizes[s]);
    const Schedule& schedule = planned.schedule;
    requireSwitchesFit(schedule, cluster, planned.protocol, file ? "--schedule" : "--algorithm");
    requireSimulationMemory(schedule, netpointsOf(cluster), "--gpus",
                            "simulating " + schedule.description() + " on " + std::to_string(args.gpus) + " GPUs",
                            engine.ranksHeld(schedule, cluster), engine.world());
  }

  CollectiveSweep sweep;
  sweep.source = "ddlsim collective";
  sweep.run = describeRun("ddlsim", "simulated");
  sweep.run.engine = std::string(engine.name());
  sweep.configuration = args.configuration;
  sweep.collective = toString(kind);
  // A schedule file's algorithm is the file; its label is the description it carries.
  const std::string chooser = tuned ? "auto" : "nccl";
  sweep.algorithmName = fixed ? std::string(fixed->algorithm->name) : tuned || nccl ? chooser : "schedule file";
  if (fixed) sweep.parameters = fixed->options;
  sweep.label = fixed ? fixed->label() : tuned || nccl ? chooser : file->description();
  sweep.ranks = args.gpus;
  sweep.hosts = cluster.nodes();
  sweep.ranksPerHost = cluster.ranksOnBusiestNode();
  sweep.type = elementTypeName(args.elementBytes);
  sweep.timeOverRanks = std::string(toString(args.average()));
  if (named) sweep.protocol = std::string(toString(*named));
  sweep.busFactor = busBandwidthFactor(kind, args.gpus);
  for (std::int64_t bytes : sizes) {
    const Planned planned = plan(bytes);
    const std::optional<ProtocolCosts> costs = planned.costs(onePerNode);
    const double baseLatency = costs ? costs->baseLatencySeconds : 0;
    const double seconds =
        baseLatency + timeOverRanks(simulateOn(engine, planned.schedule, cluster, costs, args.runs), args.runs, args.average());
    sweep.rows.push_back({bytes, bytes / args.elementBytes, {seconds, std::nullopt}, std::nullopt, std::nullopt, "", planned.chosen});
  }
  collectiveSweepToJson(sweep);  // whatever the format: a figure that is not finite is an internal error, not output
  writeOutput(args.out, [&](std::ostream& out) {
    if (args.json) {
      out << collectiveSweepToJson(sweep).dump(1) << "\n";
      return;
    }
    const NcclTestsRun table = tableRun(args, sizes, sweep, cluster, engine);
    std::vector<NcclTestsRow> lines;
    out << ncclTestsHeader(table);
    for (const CollectiveSweepRow& row : sweep.rows) {
      NcclTestsRow line;
      line.bytes = row.bytes;
      line.count = ncclTestsCount(kind, row.bytes, args.elementBytes, args.gpus);
      line.type = ncclTestsTypeName(args.elementBytes);
      line.redop = ncclTestsRedop(kind);
      line.outOfPlace.present = false;  // the schedules run in place
      line.inPlace.seconds = row.result.seconds;
      if (!row.chosen.empty()) line.comment = sweep.algorithmName + " chose " + row.chosen;
      lines.push_back(line);
      out << ncclTestsRow(line, sweep.busFactor);
    }
    out << ncclTestsFooter(table, lines, sweep.busFactor);
  });
  return 0;
}

}  // namespace

void addCollectiveCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<CollectiveArguments>();
  CLI::App* command = app.add_subcommand("collective", "Simulate one collective on a topology: time, algbw, busbw.");
  args->command = command;
  args->algorithm.addTo(command);
  command->add_option("--topology", args->topology.topology(), "Topology: a name under topologies/ or a file");
  args->topology.addTo(command);
  command->add_option("--gpus", args->gpus, "Number of GPUs (ranks)")->check(CLI::Range(1, kMaxRanks));
  command->add_option("--schedule", args->scheduleFile,
                      "Simulate the schedule in this file (ddlsim schedule --json writes one; ddlrun bench --schedule "
                      "runs it) instead of an algorithm: it gives the ranks, the size and the element size, and is "
                      "verified first")
      ->check(readableFile());
  command->add_option("--bytes", args->bytes, "Buffer size in bytes (K, M, G suffixes)")->capture_default_str();
  command->add_option("-b,--min-bytes", args->minBytes, "Sweep sizes from this ...");
  command->add_option("-e,--max-bytes", args->maxBytes, "... to this ...");
  command->add_option("-f,--factor", args->factor, "... multiplying by this, as ddlrun bench does")
      ->check(finiteIn(1, 1024))
      ->capture_default_str();
  command->add_option("--configuration", args->configuration, "A label for the JSON results, to join them with ddlrun's")
      ->check(utf8Text());
  command->add_option("--out", args->out, "Write to this file instead of standard output")->check(writableFile());
  command->add_option("--element-bytes", args->elementBytes, "Element size in bytes")->check(CLI::Range(1, 1024))->capture_default_str();
  command->add_option("-n,--iters", args->runs,
                      "Runs timed back to back after one common start, as ddlrun bench -n times them")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("-a,--average", args->averageFlag,
                      "Each time over the ranks, as ddlrun bench and nccl-tests take it: 0 rank 0's, 1 the mean (the "
                      "default), 2 the least, 3 the most (the slowest rank's)")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  command->add_option("--protocol", args->protocol,
                      "Run every message under NCCL's protocol simple, ll or ll128 (as NCCL_PROTO forces one): its "
                      "per-hop latency on NVLink, PCI and network links, its share of their bandwidth and its base "
                      "latency per collective, from NCCL's tuning model. Unset: the topology as calibrated (Simple's "
                      "per-hop latencies, no base latency)");
  command->add_flag("--json", args->json, "Write the results as JSON, in ddlrun bench's schema");
  command->add_option("--engine", args->engine, engineHelp())->capture_default_str();
  command->footer(
      "algbw is bytes / time; busbw is algbw times nccl-tests' bus factor (allreduce 2(n-1)/n, reduce-scatter and\n"
      "all-gather (n-1)/n). Every rank starts together; either engine models contention on every link of the routes.\n"
      "With -n above 1 a rank starts its next run as soon as it finishes one, as in ddlrun bench and nccl-tests.\n\n"
      "Example:\n  ddlsim collective --algorithm ddl --dims 4x16x4 --topology minsky-p100-ib-edr --gpus 256");
  command->callback([args, &exitCode] { exitCode = runCollective(*args); });
}

}  // namespace ddl
