#include "runtime/bench/bench_harness.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/io/collective_sweep_json.hpp"
#include "algorithms/collectives/registry.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/transport_buffer.hpp"
#include "common/output_file.hpp"

namespace ddl {
namespace {

struct Measurement {
  double seconds = 0;     // per run, the slowest rank's average
  std::int64_t wrong = 0; // over all ranks and checked runs
  bool available = true;
};

struct Row {
  std::int64_t bytes;
  Elements count;
  Measurement ours;
  Measurement baseline;
};

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

template <class Run>
std::int64_t checkRuns(const BenchOptions& options, const BenchCollective& collective, TransportBuffer& buffer,
                       Elements count, World& world, Run&& run) {
  std::int64_t wrong = 0;
  for (int c = 0; c < options.checks; ++c) {
    fillBuffer(options, collective, buffer, count, world);
    run();
    buffer.fromTransport(static_cast<std::size_t>(count) * sizeOf(options.type));
    wrong += collective.countWrong(buffer.host(), count, world.rank(), world.size(), options.type);
  }
  return world.sumOverRanks(wrong);
}

std::string header(const BenchOptions& options, int ranks, const std::string& description, const LibraryCollectives* baseline) {
  char text[512];
  std::snprintf(text, sizeof text,
                "# ddlrun bench: %s %s, %d ranks, %s, sum, in place; pieces of %zu B\n"
                "# %d timed runs after %d warm-up per size, %d checked run(s); time is the slowest rank's average\n#\n",
                description.c_str(), std::string(toString(options.collective)).c_str(), ranks,
                std::string(toString(options.type)).c_str(), options.run.pieceBytes, options.iterations, options.warmup,
                options.checks);
  std::string out = text;
  std::snprintf(text, sizeof text, "# %12s %12s %9s %10s %8s %8s %7s", "size", "count", "type", "time", "algbw", "busbw",
                "#wrong");
  out += text;
  if (baseline) {
    std::snprintf(text, sizeof text, "   %10s %8s %8s %7s", "time", "algbw", "busbw", "#wrong");
    out += text;
  }
  std::snprintf(text, sizeof text, "\n# %12s %12s %9s %10s %8s %8s %7s", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)", "");
  out += text;
  if (baseline) {
    std::snprintf(text, sizeof text, "   %10s %8s %8s %7s  <- %s", "(us)", "(GB/s)", "(GB/s)", "", baseline->name().c_str());
    out += text;
  }
  return out + "\n";
}

std::string tableRow(const BenchOptions& options, const Row& row, int ranks, const LibraryCollectives* baseline) {
  const double factor = busBandwidthFactor(options.collective, ranks);
  auto columns = [&](const Measurement& m) {
    char text[128];
    if (!m.available) return "   (not available in " + baseline->name() + ")";
    const double algbw = m.seconds > 0 ? static_cast<double>(row.bytes) / m.seconds / 1e9 : 0;
    std::snprintf(text, sizeof text, " %10.2f %8.2f %8.2f %7lld", m.seconds * 1e6, algbw, algbw * factor,
                  static_cast<long long>(m.wrong));
    return std::string(text);
  };
  char text[128];
  std::snprintf(text, sizeof text, "  %12lld %12lld %9s", static_cast<long long>(row.bytes), static_cast<long long>(row.count),
                std::string(toString(options.type)).c_str());
  std::string line = text + columns(row.ours);
  if (baseline) line += "  " + columns(row.baseline);
  return line + "\n";
}

}  // namespace

int runBench(const BenchOptions& options, RankContext& context) {
  World& world = context.world;
  Transport& transport = context.transport;
  LibraryCollectives* baseline = options.baseline ? context.library : nullptr;
  const Rank rank = world.rank();
  const int ranks = world.size();
  const BenchCollective& collective = benchCollective(options.collective);
  const std::size_t elementBytes = sizeOf(options.type);
  const std::string description = options.algorithm->description(options.algorithmOptions);
  ProgramRunner runner(transport, options.run);
  TransportBuffer buffer(transport, static_cast<std::size_t>(options.sizes.back()) + elementBytes);

  std::vector<Row> rows;
  std::int64_t totalWrong = 0;
  if (rank == 0 && options.format == BenchOptions::Format::Table)
    std::fputs(header(options, ranks, description, baseline).c_str(), stdout);
  for (const std::int64_t bytes : options.sizes) {
    const auto count = static_cast<Elements>(bytes / static_cast<std::int64_t>(elementBytes));
    const Program program = makeSchedule(*options.algorithm,
                                         {options.collective, ranks, count, static_cast<int>(elementBytes)},
                                         options.algorithmOptions)
                                .program(rank);
    freezeIfAsked("setup", rank);
    reserveChannels(context.world, context.transport, std::span(&program, 1));
    Row row{count * static_cast<std::int64_t>(elementBytes), count, {}, {}};
    auto ours = [&] {
      freezeIfAsked("allreduce", rank);
      runner.run(program, buffer.data(), options.type);
    };
    try {
      fillBuffer(options, collective, buffer, count, world);
      row.ours.seconds = timeRuns(options, world, ours);
      row.ours.wrong = checkRuns(options, collective, buffer, count, world, ours);
    } catch (const TransportError& error) {
      transport.abortJob("bench of " + std::to_string(row.bytes) + " bytes: " + error.what());
    }
    totalWrong += row.ours.wrong;
    if (baseline) {
      row.baseline.available = baseline->available(options.collective, count, options.type);
      if (row.baseline.available) {
        auto library = [&] {
          freezeIfAsked("baseline", rank);
          baseline->run(options.collective, buffer.data(), count, options.type);
        };
        fillBuffer(options, collective, buffer, count, world);
        row.baseline.seconds = timeRuns(options, world, library);
        row.baseline.wrong = checkRuns(options, collective, buffer, count, world, library);
      }
    }
    if (rank == 0 && options.format == BenchOptions::Format::Table) {
      std::fputs(tableRow(options, row, ranks, baseline).c_str(), stdout);
      std::fflush(stdout);
    }
    rows.push_back(row);
  }

  if (rank == 0) {
    const double factor = busBandwidthFactor(options.collective, ranks);
    if (options.format == BenchOptions::Format::Json) {
      CollectiveSweep sweep{"ddlrun bench", options.configuration, std::string(toString(options.collective)), description,
                            ranks, std::string(toString(options.type)), factor, {}};
      for (const Row& row : rows) {
        CollectiveSweepRow entry{row.bytes, row.count, {row.ours.seconds, row.ours.wrong}, std::nullopt, ""};
        if (baseline && row.baseline.available) {
          entry.baseline = CollectiveTime{row.baseline.seconds, row.baseline.wrong};
          entry.baselineLibrary = baseline->name();
        }
        sweep.rows.push_back(entry);
      }
      writeOutput(options.out, [&](std::ostream& out) { out << collectiveSweepToJson(sweep).dump(1) << "\n"; });
    } else if (options.format == BenchOptions::Format::Csv) {
      writeOutput(options.out, [&](std::ostream& out) {
        out << "bytes,count,type,time_s,algbw_Bps,busbw_Bps,wrong";
        if (baseline) out << ",baseline,baseline_time_s,baseline_algbw_Bps,baseline_busbw_Bps,baseline_wrong";
        out << "\n";
        for (const Row& row : rows) {
          auto cells = [&](const Measurement& m) {
            std::ostringstream text;
            const double algbw = m.seconds > 0 ? static_cast<double>(row.bytes) / m.seconds : 0;
            if (m.available) text << m.seconds << "," << algbw << "," << algbw * factor << "," << m.wrong;
            else text << ",,,";
            return text.str();
          };
          out << row.bytes << "," << row.count << "," << toString(options.type) << "," << cells(row.ours);
          if (baseline) out << "," << baseline->name() << "," << cells(row.baseline);
          out << "\n";
        }
      });
    } else {
      std::printf("# %s: %lld wrong elements in all\n", totalWrong == 0 ? "OK" : "FAILED", static_cast<long long>(totalWrong));
    }
  }
  return totalWrong == 0 ? 0 : 1;
}

}  // namespace ddl
