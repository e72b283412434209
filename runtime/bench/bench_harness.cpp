#include "runtime/bench/bench_harness.hpp"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "algorithms/io/output_file.hpp"

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

double busFactor(CollectiveKind kind, int ranks) {
  const double share = ranks > 1 ? static_cast<double>(ranks - 1) / ranks : 0;
  return kind == CollectiveKind::Allreduce ? 2 * share : share;
}

template <class Run>
double timeRuns(const BenchOptions& options, MPI_Comm communicator, Run&& run) {
  for (int i = 0; i < options.warmup; ++i) run();
  MPI_Barrier(communicator);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.iterations; ++i) run();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / options.iterations;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, communicator);
  return seconds;
}

template <class Run>
std::int64_t checkRuns(const BenchOptions& options, const BenchCollective& collective, std::vector<char>& buffer,
                       Elements count, Rank rank, int ranks, MPI_Comm communicator, Run&& run) {
  std::int64_t wrong = 0;
  for (int c = 0; c < options.checks; ++c) {
    collective.fill(buffer.data(), count, rank, ranks, options.type);
    run();
    wrong += collective.countWrong(buffer.data(), count, rank, ranks, options.type);
  }
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, communicator);
  return wrong;
}

std::string header(const BenchOptions& options, int ranks, const std::string& description) {
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
  if (options.baselineMpi) {
    std::snprintf(text, sizeof text, "   %10s %8s %8s %7s", "time", "algbw", "busbw", "#wrong");
    out += text;
  }
  std::snprintf(text, sizeof text, "\n# %12s %12s %9s %10s %8s %8s %7s", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)", "");
  out += text;
  if (options.baselineMpi) {
    std::snprintf(text, sizeof text, "   %10s %8s %8s %7s  <- MPI", "(us)", "(GB/s)", "(GB/s)", "");
    out += text;
  }
  return out + "\n";
}

std::string tableRow(const BenchOptions& options, const Row& row, int ranks) {
  const double factor = busFactor(options.collective, ranks);
  auto columns = [&](const Measurement& m) {
    char text[128];
    if (!m.available) return std::string("   (not available in MPI for this type)");
    const double algbw = m.seconds > 0 ? static_cast<double>(row.bytes) / m.seconds / 1e9 : 0;
    std::snprintf(text, sizeof text, " %10.2f %8.2f %8.2f %7lld", m.seconds * 1e6, algbw, algbw * factor,
                  static_cast<long long>(m.wrong));
    return std::string(text);
  };
  char text[128];
  std::snprintf(text, sizeof text, "  %12lld %12lld %9s", static_cast<long long>(row.bytes), static_cast<long long>(row.count),
                std::string(toString(options.type)).c_str());
  std::string line = text + columns(row.ours);
  if (options.baselineMpi) line += "  " + columns(row.baseline);
  return line + "\n";
}

nlohmann::json measurementJson(const Measurement& m, const Row& row, double factor) {
  if (!m.available) return nullptr;
  const double algbw = m.seconds > 0 ? static_cast<double>(row.bytes) / m.seconds : 0;
  return {{"time_s", m.seconds}, {"algbw_Bps", algbw}, {"busbw_Bps", algbw * factor}, {"wrong", m.wrong}};
}

}  // namespace

int runBench(const BenchOptions& options, MPI_Comm communicator) {
  MpiTransport transport(communicator);
  const Rank rank = transport.rank();
  const int ranks = transport.size();
  const BenchCollective& collective = benchCollective(options.collective);
  const std::size_t elementBytes = sizeOf(options.type);
  const std::string description = options.algorithm->description(options.algorithmOptions);
  ProgramRunner runner(transport, options.run);
  std::vector<char> buffer(static_cast<std::size_t>(options.maxBytes) + elementBytes);

  std::vector<Row> rows;
  std::int64_t totalWrong = 0;
  if (rank == 0 && options.format == BenchOptions::Format::Table) std::fputs(header(options, ranks, description).c_str(), stdout);
  Elements previous = -1;
  for (double bytes = static_cast<double>(options.minBytes); bytes <= static_cast<double>(options.maxBytes) * (1 + 1e-9);
       bytes *= options.factor) {
    const auto count = static_cast<Elements>(bytes) / static_cast<Elements>(elementBytes);
    if (count == previous) continue;
    previous = count;
    const Program program = makeSchedule(*options.algorithm,
                                         {options.collective, ranks, count, static_cast<int>(elementBytes)},
                                         options.algorithmOptions)
                                .program(rank);
    Row row{count * static_cast<std::int64_t>(elementBytes), count, {}, {}};
    auto ours = [&] { runner.run(program, buffer.data(), options.type); };
    try {
      collective.fill(buffer.data(), count, rank, ranks, options.type);
      row.ours.seconds = timeRuns(options, communicator, ours);
      row.ours.wrong = checkRuns(options, collective, buffer, count, rank, ranks, communicator, ours);
    } catch (const TransportError& error) {
      transport.abortJob("bench of " + std::to_string(row.bytes) + " bytes: " + error.what());
    }
    totalWrong += row.ours.wrong;
    if (options.baselineMpi) {
      auto mpi = [&] { row.baseline.available = collective.mpiBaseline(buffer.data(), count, options.type, communicator); };
      collective.fill(buffer.data(), count, rank, ranks, options.type);
      row.baseline.seconds = timeRuns(options, communicator, mpi);
      row.baseline.wrong = checkRuns(options, collective, buffer, count, rank, ranks, communicator, mpi);
    }
    if (rank == 0 && options.format == BenchOptions::Format::Table) {
      std::fputs(tableRow(options, row, ranks).c_str(), stdout);
      std::fflush(stdout);
    }
    rows.push_back(row);
  }

  if (rank == 0) {
    const double factor = busFactor(options.collective, ranks);
    if (options.format == BenchOptions::Format::Json) {
      nlohmann::json list = nlohmann::json::array();
      for (const Row& row : rows) {
        nlohmann::json entry = {{"bytes", row.bytes}, {"count", row.count}, {"type", toString(options.type)},
                                {"result", measurementJson(row.ours, row, factor)}};
        if (options.baselineMpi) entry["mpi"] = measurementJson(row.baseline, row, factor);
        list.push_back(entry);
      }
      const nlohmann::json json = {{"source", "ddlrun bench"}, {"collective", toString(options.collective)},
                                   {"algorithm", description}, {"ranks", ranks},
                                   {"in_place", true},         {"rows", list}};
      writeOutput(options.out, [&](std::ostream& out) { out << json.dump(1) << "\n"; });
    } else if (options.format == BenchOptions::Format::Csv) {
      writeOutput(options.out, [&](std::ostream& out) {
        out << "bytes,count,type,time_s,algbw_Bps,busbw_Bps,wrong";
        if (options.baselineMpi) out << ",mpi_time_s,mpi_algbw_Bps,mpi_busbw_Bps,mpi_wrong";
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
          if (options.baselineMpi) out << "," << cells(row.baseline);
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
