#include "runtime/bench/bench_harness.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/io/collective_sweep_json.hpp"
#include "algorithms/collectives/registry.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/bench/bench_table.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/job_hosts.hpp"
#include "runtime/transport_buffer.hpp"
#include "common/output_file.hpp"

namespace ddl {
namespace {

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
  return world.maxOverRanks(seconds);
}

// Fills `input`, runs, and counts the wrong elements of `output` (the same buffer, in place).
template <class Run>
std::int64_t checkRuns(const BenchOptions& options, const BenchCollective& collective, TransportBuffer& input,
                       TransportBuffer& output, Elements count, World& world, Run&& run) {
  std::int64_t wrong = 0;
  for (int c = 0; c < options.checks; ++c) {
    fillBuffer(options, collective, input, count, world);
    run();
    output.fromTransport(static_cast<std::size_t>(count) * sizeOf(options.type));
    wrong += collective.countWrong(output.host(), count, world.rank(), world.size(), options.type);
  }
  return world.sumOverRanks(wrong);
}

// "ddl 2x2", what a schedule file says of itself, or "auto" where a tuning table chooses per size.
std::string describeAlgorithm(const BenchOptions& options) {
  if (options.tuning) return "auto";
  return options.schedule ? options.schedule->description() : options.algorithm->description(options.algorithmOptions);
}

// The configuration that runs `count` elements: the bench's algorithm, or the tuning table's choice.
AlgorithmChoice choiceFor(const BenchOptions& options, Elements count) {
  if (options.tuning) return options.tuning->choose(static_cast<double>(count) * static_cast<double>(sizeOf(options.type)));
  return {options.algorithm, options.algorithmOptions};
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
  sweep.algorithmName = options.tuning ? "auto" : options.algorithm ? std::string(options.algorithm->name) : "schedule file";
  sweep.parameters = options.algorithmOptions;
  sweep.label = describeAlgorithm(options);
  sweep.ranks = ranks;
  sweep.hosts = hosts.hosts;
  sweep.ranksPerHost = hosts.ranksPerHost;
  sweep.type = toString(options.type);
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
  const auto largest = static_cast<std::size_t>(options.sizes.back()) + elementBytes;
  // nccl-tests' sendbuff and recvbuff: out of place reads `input` and leaves its result in `output`; in place
  // works on `output` alone.
  TransportBuffer input(transport, largest), output(transport, largest);
  const bool table = options.format == BenchOptions::Format::Table;
  const std::vector<std::string> rankLines = world.gatherText(describeRank(transport));
  const JobHosts hosts = jobHosts(world);

  std::vector<BenchRow> rows;
  std::int64_t totalWrong = 0;
  if (rank == 0 && table) std::fputs(benchTableHeader(options, ranks, algorithm, rankLines, baselineLibrary).c_str(), stdout);
  for (const std::int64_t bytes : options.sizes) {
    const auto count = static_cast<Elements>(bytes / static_cast<std::int64_t>(elementBytes));
    const std::size_t countBytes = static_cast<std::size_t>(count) * elementBytes;
    const AlgorithmChoice choice = options.schedule ? AlgorithmChoice{} : choiceFor(options, count);
    const Program program = options.schedule ? options.schedule->program(rank)
                                             : makeSchedule(*choice.algorithm,
                                                            {options.collective, ranks, count, static_cast<int>(elementBytes)},
                                                            choice.options)
                                                   .program(rank);
    freezeIfAsked("setup", rank);
    reserveChannels(context.world, context.transport, std::span(&program, 1));
    BenchRow row{count * static_cast<std::int64_t>(elementBytes), count, {}, {}, {}, options.tuning ? choice.label() : ""};
    auto outOfPlace = [&] {
      freezeIfAsked("allreduce", rank);
      transport.copy(output.data(), input.data(), countBytes);
      runner.run(program, output.data(), options.type);
    };
    auto inPlace = [&] {
      freezeIfAsked("allreduce", rank);
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
      std::fputs(benchTableRow(options, row, ranks, baselineLibrary).c_str(), stdout);
      std::fflush(stdout);
    }
    rows.push_back(row);
  }

  if (rank == 0) {
    if (options.format == BenchOptions::Format::Json) writeJson(options, rows, ranks, hosts, baselineLibrary);
    else if (options.format == BenchOptions::Format::Csv) writeCsv(options, rows, ranks, baselineLibrary);
    else std::fputs(benchTableFooter(options, rows, ranks).c_str(), stdout);
  }
  return totalWrong == 0 ? 0 : 1;
}

}  // namespace ddl
