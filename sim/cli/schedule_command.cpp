#include "sim/cli/schedule_command.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "algorithms/cli/algorithm_flags.hpp"
#include "algorithms/collectives/registry.hpp"
#include "algorithms/cost/schedule_walk.hpp"
#include "algorithms/io/msccl_xml.hpp"
#include "algorithms/io/msccl_xml_read_back.hpp"
#include "algorithms/io/schedule_json.hpp"
#include "algorithms/schedule/traffic.hpp"
#include "algorithms/verify/verifier.hpp"
#include "common/byte_sizes.hpp"
#include "common/cli_checks.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"
#include "common/output_file.hpp"
#include "sim/sweep/simulation_memory.hpp"

namespace ddl {
namespace {

// Defaults of the α-β-γ estimate; every estimate prints the values it used.
// α: an assumption of the order of one InfiniBand hop, not a measurement.
constexpr double kDefaultLatencySeconds = 1e-6;
// β = 1/12.5 GB/s: InfiniBand EDR, 100 Gb/s per direction (docs/reference/README.md, recalled).
constexpr double kDefaultBandwidth = 12.5e9;
// γ = 1/(732 GB/s / 3): P100 HBM2 at 732 GB/s (same source, recalled); a sum reads two bytes and writes one
// per byte reduced.
constexpr double kDefaultReduceBandwidth = 732e9 / 3;
// ResNet-50's 25,557,032 fp32 gradients (docs/reference/README.md, measured from torchvision).
constexpr std::int64_t kDefaultBytes = 25'557'032LL * 4;

struct ScheduleArguments {
  AlgorithmFlags algorithm;
  int ranks = 0;
  std::string bytes = std::to_string(kDefaultBytes);
  int elementBytes = 4;
  std::string from;
  std::string levels;
  bool verify = false;
  bool json = false;
  bool mscclXml = false;
  bool perRank = false;
  int rank = -1;
  std::string out;
  std::vector<double> latency{kDefaultLatencySeconds};
  std::vector<double> bandwidth{kDefaultBandwidth};
  double reduceBandwidth = kDefaultReduceBandwidth;

  CLI::App* command = nullptr;
  bool given(const std::string& option) const { return command->count(option) > 0; }
};

struct Loaded {
  Schedule schedule;
  const AlgorithmDefinition* algorithm = nullptr;  // null for a schedule read from a file
  AlgorithmOptions options;
};

Loaded loadFromFile(const ScheduleArguments& args) {
  args.algorithm.requireNoneGiven("--from");
  for (const char* option : {"--ranks", "--bytes", "--element-bytes"})
    if (args.given(option)) throw InvalidArgument(option, "cannot be combined with --from: the file gives the schedule");
  return {scheduleFromJson(readJsonFile(args.from), args.from), nullptr, {}};
}

Loaded generate(const ScheduleArguments& args) {
  if (args.given("--levels")) throw InvalidArgument("--levels", "only for --from: an algorithm knows its link levels");
  if (!args.given("--algorithm")) throw InvalidArgument("--algorithm", "required (or --from FILE)");
  if (!args.given("--ranks")) throw InvalidArgument("--ranks", "required (or --from FILE)");
  const std::int64_t bytes = parseByteSize(args.bytes, "--bytes");
  if (bytes % args.elementBytes != 0)
    throw InvalidArgument("--bytes", std::to_string(bytes) + " is not a whole number of " +
                                         std::to_string(args.elementBytes) + "-byte elements");
  const AlgorithmOptions options = args.algorithm.options();
  const AlgorithmDefinition& algorithm = args.algorithm.algorithm();
  const CollectiveSpec spec{args.algorithm.collective(), args.ranks, bytes / args.elementBytes, args.elementBytes};
  Schedule schedule = args.algorithm.schedule(spec, "--ranks");
  requireScheduleMemory(schedule, "--ranks", "holding every rank's program of " + schedule.description());
  return {std::move(schedule), &algorithm, options};
}

std::vector<LinkCost> linkCosts(const ScheduleArguments& args) {
  std::vector<double> latency = args.latency;
  std::vector<double> bandwidth = args.bandwidth;
  if (latency.size() == 1 && bandwidth.size() > 1) latency.resize(bandwidth.size(), latency.front());
  if (bandwidth.size() == 1 && latency.size() > 1) bandwidth.resize(latency.size(), bandwidth.front());
  if (latency.size() != bandwidth.size())
    throw InvalidArgument("--bandwidth-Bps", "give as many values as --latency-s, or one");
  std::vector<LinkCost> links;
  for (std::size_t i = 0; i < latency.size(); ++i) {
    if (bandwidth[i] <= 0) throw InvalidArgument("--bandwidth-Bps", "must be positive");
    if (latency[i] < 0) throw InvalidArgument("--latency-s", "must not be negative");
    links.push_back({latency[i], 1 / bandwidth[i]});
  }
  return links;
}

CostModel costModel(const ScheduleArguments& args, const Loaded& loaded) {
  if (args.reduceBandwidth <= 0) throw InvalidArgument("--reduce-Bps", "must be positive");
  const std::vector<LinkCost> links = linkCosts(args);
  const double gamma = 1 / args.reduceBandwidth;
  const int ranks = loaded.schedule.ranks();
  if (loaded.algorithm) return costModelFor(*loaded.algorithm, ranks, loaded.options, links, gamma);
  std::vector<int> levels{ranks};
  // Levels are a grid of the ranks; a switch after them has no place in it.
  if (args.given("--levels") && loaded.schedule.spec().switches > 0)
    throw InvalidArgument("--levels", args.from + " reduces in a switch, which has no place in a grid of its ranks' link levels");
  if (args.given("--levels")) {
    try {
      levels = parseDims(args.levels);
      checkGrid(levels, ranks);
    } catch (const InvalidArgument& error) {
      const std::string message = error.what();
      throw InvalidArgument("--levels", message.substr(std::min(message.size(), error.field().size() + 2)));
    }
  }
  if (links.size() == 1) return CostModel(levels, std::vector<LinkCost>(levels.size(), links.front()), gamma);
  if (links.size() != levels.size()) throw InvalidArgument("--latency-s", "give one value per level of --levels, or one");
  return CostModel(std::move(levels), links, gamma);
}

void printTraffic(const Loaded& loaded, const ScheduleArguments& args) {
  const std::vector<RankTraffic> traffic = trafficPerRank(loaded.schedule);
  auto range = [&](auto field, auto format) {
    auto [low, high] = std::minmax_element(traffic.begin(), traffic.end(),
                                           [&](const RankTraffic& a, const RankTraffic& b) { return field(a) < field(b); });
    return low == traffic.end() ? std::string("-") : format(field(*low)) + " .. " + format(field(*high));
  };
  auto count = [](auto value) { return std::to_string(value); };
  auto bytes = [](double value) { return formatBytes(value); };
  std::printf("steps per rank       %s\n", range([](const RankTraffic& t) { return t.steps; }, count).c_str());
  std::printf("messages sent        %s per rank\n", range([](const RankTraffic& t) { return t.sends; }, count).c_str());
  std::printf("bytes sent           %s per rank\n", range([](const RankTraffic& t) { return t.bytesSent; }, bytes).c_str());
  std::printf("bytes received       %s per rank\n", range([](const RankTraffic& t) { return t.bytesReceived; }, bytes).c_str());
  if (!args.perRank && args.rank < 0) return;
  std::printf("\n%8s %8s %8s %8s %14s %14s\n", "rank", "steps", "sends", "receives", "bytes_sent", "bytes_received");
  for (const RankTraffic& t : traffic)
    if (args.rank < 0 || t.rank == args.rank)
      std::printf("%8d %8d %8d %8d %14.0f %14.0f\n", t.rank, t.steps, t.sends, t.receives, t.bytesSent, t.bytesReceived);
  std::printf("\n");
}

void printCost(const Loaded& loaded, const CostModel& model, double walk) {
  std::printf("cost model           gamma = 1/%s", formatRate(1 / model.reduceSecondsPerByte()).c_str());
  for (int level = 0; level < model.levelCount(); ++level)
    std::printf("; level %d (%d): alpha = %s, beta = 1/%s", level, model.levelSize(level),
                formatSeconds(model.link(level).latency_s).c_str(), formatRate(1 / model.link(level).seconds_per_byte).c_str());
  std::printf("\n");
  if (loaded.algorithm) {
    const double closed = loaded.algorithm->closedFormSeconds(loaded.schedule.spec(), loaded.options, model);
    std::printf("closed form          %s\n", formatSeconds(closed).c_str());
  }
  const double bytes = loaded.schedule.spec().bytes();
  std::printf("schedule walk        %s  (algbw %s)\n", formatSeconds(walk).c_str(),
              walk > 0 ? formatRate(bytes / walk).c_str() : "-");
}

int report(const Schedule& schedule, const VerificationReport& report, std::FILE* out) {
  if (report.ok()) {
    std::fprintf(out, "verify               ok: the %s is correct on all %d ranks\n",
                 std::string(toString(schedule.spec().kind)).c_str(), schedule.ranks());
    return 0;
  }
  std::fprintf(out, "verify               FAILED (%s): %s\n", std::string(toString(report.problem)).c_str(),
               report.message.c_str());
  return 1;
}

void writeJson(const Loaded& loaded, const ScheduleArguments& args) {
  const std::optional<Rank> only = args.rank >= 0 ? std::optional<Rank>(args.rank) : std::nullopt;
  writeOutput(args.out, [&](std::ostream& out) { writeScheduleJson(out, loaded.schedule, only); });
}

// Every exporter verifies what it exports: the XML is read back as it is written (MscclXmlReadBack) and
// run under MSCCL's rules. A file is renamed into place only after that passes (writeOutput removes it
// when this throws); standard output, which cannot be taken back, gets the text only then.
void writeMsccl(const Loaded& loaded, const ScheduleArguments& args) {
  MscclExport exported;
  auto writeChecked = [&](std::ostream& out) {
    MscclXmlReadBack readBack(out);
    exported = writeMscclXml(readBack, loaded.schedule);
    if (const std::optional<std::string> fault = readBack.fault())
      throw std::logic_error("the MSCCL XML export failed its read-back: " + *fault);
  };
  if (args.out.empty()) {
    std::ostringstream text;
    writeChecked(text);
    writeOutput("", [&](std::ostream& out) { out << text.view(); });
  } else {
    writeOutput(args.out, writeChecked);
  }
  for (const std::string& line : exported.runtimeLimitsExceeded) std::fprintf(stderr, "warning: %s\n", line.c_str());
}

int runSchedule(const ScheduleArguments& args) {
  if (args.given("--out") && !args.json && !args.mscclXml) throw InvalidArgument("--out", "only with --json or --msccl-xml");
  if (args.json && args.mscclXml) throw InvalidArgument("--msccl-xml", "cannot be combined with --json: one format at a time");
  if (args.mscclXml && args.given("--rank")) throw InvalidArgument("--rank", "MSCCL's XML holds every GPU: no --rank with --msccl-xml");
  if ((args.mscclXml || args.json) && args.perRank)
    throw InvalidArgument("--per-rank", "a table of the summary: not with --json or --msccl-xml");
  const Loaded loaded = args.from.empty() ? generate(args) : loadFromFile(args);
  const CollectiveSpec& spec = loaded.schedule.spec();
  if (args.given("--rank") && (args.rank < 0 || args.rank >= spec.ranks))
    throw InvalidArgument("--rank", std::to_string(args.rank) + " is not one of the " + std::to_string(spec.ranks) + " ranks");
  const CostModel model = costModel(args, loaded);

  // Everything is worked out before anything is printed: a schedule that cannot run fails without output.
  std::optional<VerificationReport> verification;
  if (args.verify) verification = verify(loaded.schedule);
  if (args.json || args.mscclXml) {
    const int status = verification ? report(loaded.schedule, *verification, stderr) : 0;
    if (status != 0) return status;  // a schedule that failed --verify is not written out
    if (args.json) writeJson(loaded, args);
    else writeMsccl(loaded, args);
    return 0;
  }
  std::optional<double> walk;
  if (!verification || verification->ok()) {
    try {
      walk = walkSeconds(loaded.schedule, model);
    } catch (const std::invalid_argument& error) {
      if (verification) throw std::logic_error(std::string("the verifier passed a schedule that cannot run: ") + error.what());
      throw std::runtime_error(args.from + ": the schedule cannot run to its end (" + error.what() +
                               "); --verify reports every problem");
    }
  }
  std::printf("schedule             %s %s, %d ranks, %lld elements of %d B (%s)\n", loaded.schedule.description().c_str(),
              std::string(toString(spec.kind)).c_str(), spec.ranks, static_cast<long long>(spec.elements),
              spec.elementBytes, formatBytes(spec.bytes()).c_str());
  printTraffic(loaded, args);
  const int status = verification ? report(loaded.schedule, *verification, stdout) : 0;
  if (walk) printCost(loaded, model, *walk);
  std::fflush(stdout);
  return status;
}

}  // namespace

void addScheduleCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<ScheduleArguments>();
  CLI::App* command = app.add_subcommand(
      "schedule", "Generate a collective's schedule: steps and bytes per rank, analytic cost, verification, JSON.");
  args->command = command;
  args->algorithm.addTo(command);
  command->add_option("--ranks", args->ranks, "Number of ranks P")->check(CLI::Range(1, kMaxRanks));
  command->add_option("--bytes", args->bytes, "Buffer size in bytes (K, M, G suffixes)")->capture_default_str();
  command->add_option("--element-bytes", args->elementBytes, "Element size in bytes (4 for float32)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  command->add_option("--from", args->from, "Read the schedule from a JSON file instead of generating it")->check(readableFile());
  command->add_option("--levels", args->levels, "With --from: link levels for the cost walk (4x16x4)");
  command->add_flag("--verify", args->verify, "Prove the schedule computes its collective (exit 1 if not)");
  command->add_flag("--json", args->json, "Write the schedule as JSON instead of the summary");
  command->add_flag("--msccl-xml", args->mscclXml,
                    "Write the allreduce in MSCCL's XML algorithm format (as msccl-tools writes it) instead of the summary");
  command->add_option("--rank", args->rank, "Only this rank: its line of the table, or its program in JSON")
      ->check(CLI::Range(0, kMaxRanks - 1));
  command->add_flag("--per-rank", args->perRank, "Print a table of steps and bytes for every rank");
  command->add_option("--out", args->out, "With --json or --msccl-xml: write to this file instead of standard output")->check(writableFile());
  command->add_option("--latency-s", args->latency, "alpha per link level, comma-separated, seconds")
      ->delimiter(',')
      ->check(finiteIn(0, 1))
      ->capture_default_str();
  command->add_option("--bandwidth-Bps", args->bandwidth, "bandwidth per link level, comma-separated, bytes/s")
      ->delimiter(',')
      ->check(finiteIn(1, 1e15))
      ->capture_default_str();
  command->add_option("--reduce-Bps", args->reduceBandwidth, "reduction throughput, bytes/s")
      ->check(finiteIn(1, 1e15))
      ->capture_default_str();
  command->footer(
      "The cost is the alpha-beta-gamma model: alpha + bytes*beta per message on the link level it crosses, bytes*gamma\n"
      "per reduction, no contention. Levels come from the algorithm (ddl: its dims; hierarchical: ranks per node, nodes;\n"
      "torus-2d: W, H; others: one level). Defaults: alpha 1 us (assumed), 12.5 GB/s (InfiniBand EDR), reduce 244 GB/s\n"
      "(P100 HBM2 732 GB/s over 3 bytes moved per byte reduced).\n\n"
      "Examples:\n"
      "  ddlsim schedule --algorithm ddl --ranks 256 --dims 4x16x4 --verify\n"
      "  ddlsim schedule --algorithm hierarchical --ranks 64 --ranks-per-node 4 --inner halving-doubling\n"
      "  ddlsim schedule --algorithm ring --ranks 4 --bytes 64 --json --out ring4.json\n"
      "  ddlsim schedule --algorithm ddl --ranks 16 --dims 4x4 --bytes 64K --msccl-xml --out ddl16.xml\n"
      "  ddlsim schedule --from ring4.json --verify");
  command->callback([args, &exitCode] { exitCode = runSchedule(*args); });
}

}  // namespace ddl
