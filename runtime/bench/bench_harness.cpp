#include "runtime/bench/bench_harness.hpp"

#include <unistd.h>

#include <chrono>
#include <limits>
#include <cstdio>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/io/collective_sweep_json.hpp"
#include "algorithms/collectives/registry.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/call_agreement.hpp"
#include "common/fault_injection.hpp"
#include "runtime/job_hosts.hpp"
#include "runtime/transport_buffer.hpp"
#include "common/output_file.hpp"

namespace ddl {
namespace {

struct BenchMeasurement {
  double seconds = 0;      // per run, over the ranks as -a says
  std::int64_t wrong = 0;  // over all ranks and checked runs
  bool available = true;   // false where the library lacks this collective, size or type
};

struct BenchRow {
  std::int64_t bytes = 0;
  Elements count = 0;
  BenchMeasurement outOfPlace;
  BenchMeasurement inPlace;
  BenchMeasurement baseline;  // the library's own, in place, where asked for
  std::string chosen;         // --algorithm auto or nccl: what the tuning table or NCCL's model chose at this size
};

// A figure every rank has, as nccl-tests' -a reports it: rank 0's, or the mean, least or most over the ranks.
double overRanks(World& world, double value, RankAverage average) {
  switch (average) {
    case RankAverage::Rank0: return world.maxOverRanks(world.rank() == 0 ? value : -std::numeric_limits<double>::infinity());
    case RankAverage::Mean: return world.meanOverRanks(value);
    case RankAverage::Min: return -world.maxOverRanks(-value);
    case RankAverage::Max: return world.maxOverRanks(value);
  }
  return value;
}

// The buffer a size's runs work on, filled with its starting values.
void fillBuffer(const BenchOptions& options, const BenchCollective& collective, TransportBuffer& buffer, Elements count,
                const World& world) {
  collective.fill(buffer.host(), count, world.rank(), world.size(), options.type);
  buffer.toTransport(static_cast<std::size_t>(count) * sizeOf(options.type));
}

template <class Run>
double timeRuns(const BenchOptions& options, World& world, Run&& run) {
  for (int i = 0; i < options.warmup; ++i) run();
  freezeIfAsked("barrier", world.rank());
  world.barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.iterations; ++i) run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / options.iterations;
  freezeIfAsked("results", world.rank());
  return overRanks(world, seconds, options.average);
}

// Fills `input`, runs, and counts the wrong elements of `output` (the same buffer, in place). Out of place,
// the output starts as NaN, which no element of a result equals, so that what the run leaves unwritten
// counts; and every element of the input the run changed counts too.
template <class Run>
std::int64_t checkRuns(const BenchOptions& options, const BenchCollective& collective, TransportBuffer& input,
                       TransportBuffer& output, Elements count, World& world, Run&& run) {
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeOf(options.type);
  const bool outOfPlace = &input != &output;
  std::vector<char> given;
  std::int64_t wrong = 0;
  for (int c = 0; c < options.checks; ++c) {
    fillBuffer(options, collective, input, count, world);
    if (outOfPlace) {
      const auto* filled = static_cast<const char*>(input.host());
      given.assign(filled, filled + bytes);
      writeUnset(output.host(), count, options.type);
      output.toTransport(bytes);
    }
    run();
    output.fromTransport(bytes);
    wrong += collective.countWrong(output.host(), count, world.rank(), world.size(), options.type);
    if (outOfPlace) {
      input.fromTransport(bytes);
      wrong += countChanged(given.data(), input.host(), count, options.type);
    }
  }
  return world.sumOverRanks(wrong);
}

CallKind callKindOf(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::Allreduce: return CallKind::Allreduce;
    case CollectiveKind::ReduceScatter: return CallKind::ReduceScatter;
    case CollectiveKind::AllGather: return CallKind::AllGather;
  }
  return CallKind::Allreduce;
}

// --check-agreement: every run is first agreed on, as libddlscale agrees on a call, at the cost it has there.
class CallChecker {
 public:
  CallChecker(const BenchOptions& options, Transport& transport) : options_(options), transport_(transport) {}

  void agree(Elements count) {
    if (!options_.checkAgreement) return;
    const CallShape shape{callKindOf(options_.collective), static_cast<std::int32_t>(options_.type), count, -1,
                          options_.collective == CollectiveKind::AllGather ? -1 : static_cast<std::int32_t>(Reduction::Sum),
                          ++calls_};
    // A silent peer throws TransportError, which ends the job as a run's own waits do.
    agreeOnCall(transport_, kAgreementChannel, shape, [this](std::vector<RequestId> requests, const std::string&) {
      waitForAllWithin(transport_, requests, options_.run.timeout);
    });
  }

 private:
  const BenchOptions& options_;
  Transport& transport_;
  std::uint64_t calls_ = 0;
};

// What chooses per size: "auto" (a tuning table), "nccl" (NCCL's tuning model), or empty for one algorithm.
std::string chooserOf(const BenchOptions& options) { return options.tuning ? "auto" : options.nccl ? "nccl" : ""; }

// "ddl 2x2", what a schedule file says of itself, or "auto" or "nccl" where the choice is per size.
std::string describeAlgorithm(const BenchOptions& options) {
  if (!chooserOf(options).empty()) return chooserOf(options);
  return options.schedule ? options.schedule->description() : options.algorithm->description(options.algorithmOptions);
}

// What runs `count` elements: the bench's algorithm, or the tuning table's or NCCL's model's choice, with its
// label. NCCL's protocol is part of what its model chose, said in the label; the transports here move plain
// bytes, so the algorithm and channels run without it.
struct SizeChoice {
  AlgorithmChoice algorithm;
  std::string label;  // empty for one algorithm
};
SizeChoice choiceFor(const BenchOptions& options, Elements count) {
  const double bytes = static_cast<double>(count) * static_cast<double>(sizeOf(options.type));
  if (options.tuning) {
    const AlgorithmChoice chosen = options.tuning->choose(bytes);
    return {chosen, chosen.label()};
  }
  if (options.nccl) {
    const NcclChoice chosen = ncclChoice(*options.nccl, options.collective, bytes);
    return {chosen.algorithm, chosen.label()};
  }
  return {{options.algorithm, options.algorithmOptions}, ""};
}

// The table's run: its parameters, what runs, and each rank's device.
NcclTestsRun tableRun(const BenchOptions& options, int ranks, const std::string& algorithm, std::vector<std::string> devices,
                      const std::string& baselineLibrary) {
  NcclTestsRun run;
  run.program = "ddlrun bench";
  run.minBytes = options.minBytes > 0 ? options.minBytes : options.sizes.front();
  run.maxBytes = options.maxBytes > 0 ? options.maxBytes : options.sizes.back();
  run.factor = options.factor;
  run.stepBytes = options.stepBytes;
  run.warmup = options.warmup;
  run.iterations = options.iterations;
  run.validation = options.checks > 0;
  run.unalign = options.unalign;
  char text[256];
  std::snprintf(text, sizeof text, "ddlrun: %s %s on %d ranks, schedule pieces of %zu B, each time the %s over the ranks (-a %d)",
                algorithm.c_str(), std::string(toString(options.collective)).c_str(), ranks, options.run.pieceBytes,
                std::string(toString(options.average)).c_str(), static_cast<int>(options.average));
  run.comments = {text};
  run.devices = std::move(devices);
  run.baselineLibrary = baselineLibrary;
  return run;
}

NcclTestsHalf tableHalf(const BenchMeasurement& measured, bool checked) {
  NcclTestsHalf half;
  half.present = measured.available;
  half.seconds = measured.seconds;
  if (checked) half.wrong = measured.wrong;
  return half;
}

NcclTestsRow tableRow(const BenchOptions& options, const BenchRow& row, int ranks, bool baseline) {
  const int elementBytes = static_cast<int>(sizeOf(options.type));
  NcclTestsRow line;
  line.bytes = row.bytes;
  line.count = ncclTestsCount(options.collective, row.bytes, elementBytes, ranks);
  line.type = std::string(ncclTestsName(options.type));
  line.redop = ncclTestsRedop(options.collective);
  const bool checked = options.checks > 0;
  line.outOfPlace = tableHalf(row.outOfPlace, checked);
  line.inPlace = tableHalf(row.inPlace, checked);
  if (baseline) line.baseline = tableHalf(row.baseline, checked);
  // What a tuning table or NCCL chose goes on a comment line before its row, so the row keeps nccl-tests' columns.
  if (!row.chosen.empty()) line.comment = chooserOf(options) + " chose " + row.chosen;
  return line;
}

// "Pid  12345 on    myhost device  0 [0000:04:00] NVIDIA H200", this rank's line of the table's header.
std::string describeRank(const Transport& transport) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  char text[512];
  std::snprintf(text, sizeof text, "Pid %6d on %10s device %s", static_cast<int>(getpid()), host,
                transport.deviceDescription().c_str());
  return text;
}

void writeJson(const BenchOptions& options, const std::vector<BenchRow>& rows, int ranks, const JobHosts& hosts,
               const std::string& baselineLibrary) {
  CollectiveSweep sweep;
  sweep.source = "ddlrun bench";
  sweep.run = describeRun("ddlrun", options.transport);
  sweep.configuration = options.configuration;
  sweep.collective = toString(options.collective);
  sweep.algorithmName = !chooserOf(options).empty() ? chooserOf(options) : options.algorithm ? std::string(options.algorithm->name) : "schedule file";
  sweep.parameters = options.algorithmOptions;
  sweep.label = describeAlgorithm(options);
  sweep.ranks = ranks;
  sweep.hosts = hosts.hosts;
  sweep.ranksPerHost = hosts.ranksPerHost;
  sweep.type = toString(options.type);
  sweep.timeOverRanks = std::string(toString(options.average));
  sweep.busFactor = busBandwidthFactor(options.collective, ranks);
  for (const BenchRow& row : rows) {
    CollectiveSweepRow entry{row.bytes, row.count, {row.inPlace.seconds, row.inPlace.wrong}, std::nullopt, std::nullopt, "",
                             row.chosen};
    entry.outOfPlace = CollectiveTime{row.outOfPlace.seconds, row.outOfPlace.wrong};
    if (!baselineLibrary.empty() && row.baseline.available) {
      entry.baseline = CollectiveTime{row.baseline.seconds, row.baseline.wrong};
      entry.baselineLibrary = baselineLibrary;
    }
    sweep.rows.push_back(entry);
  }
  writeOutput(options.out, [&](std::ostream& out) { out << collectiveSweepToJson(sweep).dump(1) << "\n"; });
}

void writeCsv(const BenchOptions& options, const std::vector<BenchRow>& rows, int ranks, const std::string& baselineLibrary) {
  const double factor = busBandwidthFactor(options.collective, ranks);
  writeOutput(options.out, [&](std::ostream& out) {
    out << "bytes,count,type,time_s,algbw_Bps,busbw_Bps,wrong,out_of_place_time_s,out_of_place_algbw_Bps,"
           "out_of_place_busbw_Bps,out_of_place_wrong";
    if (!baselineLibrary.empty()) out << ",baseline,baseline_time_s,baseline_algbw_Bps,baseline_busbw_Bps,baseline_wrong";
    out << "\n";
    for (const BenchRow& row : rows) {
      auto cells = [&](const BenchMeasurement& m) {
        std::ostringstream text;
        const double algbw = m.seconds > 0 ? static_cast<double>(row.bytes) / m.seconds : 0;
        if (m.available) text << m.seconds << "," << algbw << "," << algbw * factor << "," << m.wrong;
        else text << ",,,";
        return text.str();
      };
      out << row.bytes << "," << row.count << "," << toString(options.type) << "," << cells(row.inPlace) << ","
          << cells(row.outOfPlace);
      if (!baselineLibrary.empty()) out << "," << baselineLibrary << "," << cells(row.baseline);
      out << "\n";
    }
  });
}

}  // namespace

int runBench(const BenchOptions& options, RankContext& context) {
  World& world = context.world;
  Transport& transport = context.transport;
  LibraryCollectives* baseline = options.baseline ? context.library : nullptr;
  const std::string baselineLibrary = baseline ? baseline->name() : "";
  const Rank rank = world.rank();
  const int ranks = world.size();
  const BenchCollective& collective = benchCollective(options.collective);
  const std::size_t elementBytes = sizeOf(options.type);
  const std::string algorithm = describeAlgorithm(options);
  ProgramRunner runner(transport, options.run);
  CallChecker checker(options, transport);
  const auto largest = static_cast<std::size_t>(options.sizes.back()) + elementBytes;
  // nccl-tests' sendbuff and recvbuff: out of place reads `input` and leaves its result in `output`; in place
  // works on `output` alone. Both begin -u elements into their memory.
  const std::size_t unalign = static_cast<std::size_t>(options.unalign) * elementBytes;
  TransportBuffer input(transport, largest, unalign), output(transport, largest, unalign);
  const bool table = options.format == BenchOptions::Format::Table;
  const NcclTestsRun run = tableRun(options, ranks, algorithm, world.gatherText(describeRank(transport)), baselineLibrary);
  const double busFactor = busBandwidthFactor(options.collective, ranks);
  const JobHosts hosts = jobHosts(world);

  std::vector<BenchRow> rows;
  std::vector<NcclTestsRow> lines;
  std::int64_t totalWrong = 0;
  if (rank == 0 && table) std::fputs(ncclTestsHeader(run).c_str(), stdout);
  std::vector<std::int64_t> sweep;
  for (int cycle = 0; cycle < options.cycles; ++cycle) sweep.insert(sweep.end(), options.sizes.begin(), options.sizes.end());
  for (const std::int64_t bytes : sweep) {
    const auto count = static_cast<Elements>(bytes / static_cast<std::int64_t>(elementBytes));
    const SizeChoice choice = options.schedule ? SizeChoice{} : choiceFor(options, count);
    const Program program = options.schedule ? options.schedule->program(rank)
                                             : makeSchedule(*choice.algorithm.algorithm,
                                                            {options.collective, ranks, count, static_cast<int>(elementBytes)},
                                                            choice.algorithm.options)
                                                   .program(rank);
    freezeIfAsked("setup", rank);
    reserveChannels(context.world, context.transport, std::span(&program, 1));
    BenchRow row{count * static_cast<std::int64_t>(elementBytes), count, {}, {}, {}, choice.label};
    auto outOfPlace = [&] {
      freezeIfAsked("allreduce", rank);
      checker.agree(count);
      runner.run(program, input.data(), output.data(), options.type);
    };
    auto inPlace = [&] {
      freezeIfAsked("allreduce", rank);
      checker.agree(count);
      runner.run(program, output.data(), options.type);
    };
    try {
      fillBuffer(options, collective, input, count, world);
      row.outOfPlace.seconds = timeRuns(options, world, outOfPlace);
      row.outOfPlace.wrong = checkRuns(options, collective, input, output, count, world, outOfPlace);
      fillBuffer(options, collective, output, count, world);
      row.inPlace.seconds = timeRuns(options, world, inPlace);
      row.inPlace.wrong = checkRuns(options, collective, output, output, count, world, inPlace);
    } catch (const TransportError& error) {
      transport.abortJob("bench of " + std::to_string(row.bytes) + " bytes: " + error.what());
    }
    totalWrong += row.outOfPlace.wrong + row.inPlace.wrong;
    if (baseline) {
      row.baseline.available = baseline->available(options.collective, count, options.type);
      if (row.baseline.available) {
        auto library = [&] {
          freezeIfAsked("baseline", rank);
          baseline->run(options.collective, output.data(), count, options.type);
        };
        fillBuffer(options, collective, output, count, world);
        row.baseline.seconds = timeRuns(options, world, library);
        row.baseline.wrong = checkRuns(options, collective, output, output, count, world, library);
        totalWrong += row.baseline.wrong;  // a library that sums wrong on these buffers fails the run too
      }
    }
    if (rank == 0 && table) {
      lines.push_back(tableRow(options, row, ranks, baseline != nullptr));
      std::fputs(ncclTestsRow(lines.back(), busFactor).c_str(), stdout);
      std::fflush(stdout);
    }
    rows.push_back(row);
  }

  if (rank == 0) {
    if (options.format == BenchOptions::Format::Json) writeJson(options, rows, ranks, hosts, baselineLibrary);
    else if (options.format == BenchOptions::Format::Csv) writeCsv(options, rows, ranks, baselineLibrary);
    else std::fputs(ncclTestsFooter(run, lines, busFactor).c_str(), stdout);
  }
  return totalWrong == 0 ? 0 : 1;
}

}  // namespace ddl
