#include "runtime/bench/bench_table.hpp"

#include <cstdio>

namespace ddl {
namespace {

double gigabytesPerSecond(std::int64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0;
}

// One half of a row: "  time  algbw  busbw  #wrong", as nccl-tests spaces them; #wrong is N/A unchecked (-c 0).
std::string half(const BenchMeasurement& measurement, std::int64_t bytes, double busFactor, bool checked) {
  char text[96];
  if (!measurement.available) {
    std::snprintf(text, sizeof text, "  %7s  %6s  %6s  %5s", "n/a", "n/a", "n/a", "n/a");
    return text;
  }
  const double algbw = gigabytesPerSecond(bytes, measurement.seconds);
  const std::string wrong = checked ? std::to_string(measurement.wrong) : "N/A";
  std::snprintf(text, sizeof text, "  %7s  %6.2f  %6.2f  %5s", formatMicroseconds(measurement.seconds).c_str(), algbw,
                algbw * busFactor, wrong.c_str());
  return text;
}

}  // namespace

std::string formatMicroseconds(double seconds) {
  const double us = seconds * 1e6;
  char text[32];
  if (us >= 10000) std::snprintf(text, sizeof text, "%7.0f", us);
  else if (us >= 100) std::snprintf(text, sizeof text, "%7.1f", us);
  else std::snprintf(text, sizeof text, "%7.2f", us);
  return text;
}

std::string benchTableHeader(const BenchOptions& options, int ranks, const std::string& algorithm,
                             const std::vector<std::string>& rankLines, const std::string& baselineLibrary) {
  char text[512];
  std::string out;
  std::snprintf(text, sizeof text,
                "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: %g(factor) warmup iters: %d iters: %d "
                "agg iters: 1 validation: %d graph: 0\n",
                static_cast<long long>(options.sizes.front()), static_cast<long long>(options.sizes.back()), options.factor,
                options.warmup, options.iterations, options.checks > 0 ? 1 : 0);
  out += text;
  std::snprintf(text, sizeof text, "# ddlrun: %s %s on %d ranks, schedule pieces of %zu B; out of place = a local copy, then in place\n",
                algorithm.c_str(), std::string(toString(options.collective)).c_str(), ranks, options.run.pieceBytes);
  out += text;
  out += "#\n# Using devices\n";
  for (std::size_t r = 0; r < rankLines.size(); ++r) {
    std::snprintf(text, sizeof text, "#  Rank %2zu Group  0 %s\n", r, rankLines[r].c_str());
    out += text;
  }
  out += "#\n";
  std::snprintf(text, sizeof text, "#%62s%-35s%-18s", "", "out-of-place", "in-place");
  out += text;
  if (!baselineLibrary.empty()) out += "  " + baselineLibrary + "'s own, in place";
  out += "\n";
  std::snprintf(text, sizeof text, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s", "size", "count", "type",
                "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out += text;
  if (!baselineLibrary.empty()) {
    std::snprintf(text, sizeof text, "  %7s  %6s  %6s %6s", "time", "algbw", "busbw", "#wrong");
    out += text;
  }
  out += "\n";
  std::snprintf(text, sizeof text, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s", "(B)", "(elements)", "",
                "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  out += text;
  if (!baselineLibrary.empty()) {
    std::snprintf(text, sizeof text, "  %7s  %6s  %6s  %5s", "(us)", "(GB/s)", "(GB/s)", "");
    out += text;
  }
  return out + "\n";
}

std::string benchTableRow(const BenchOptions& options, const BenchRow& row, int ranks, const std::string& baselineLibrary) {
  const double factor = busBandwidthFactor(options.collective, ranks);
  char text[128];
  // Root is -1 for collectives without one, as in nccl-tests.
  std::snprintf(text, sizeof text, "%12lld  %12lld  %8s  %6s  %6d", static_cast<long long>(row.bytes),
                static_cast<long long>(row.count), std::string(ncclTestsName(options.type)).c_str(), "sum", -1);
  const bool checked = options.checks > 0;
  std::string line = text + half(row.outOfPlace, row.bytes, factor, checked) + half(row.inPlace, row.bytes, factor, checked);
  if (!baselineLibrary.empty()) line += half(row.baseline, row.bytes, factor, checked);
  // The choice of a tuning table goes on a comment line before its row, so the row keeps nccl-tests' columns.
  return (row.chosen.empty() ? "" : "#  auto chose " + row.chosen + "\n") + line + "\n";
}

std::string benchTableFooter(const BenchOptions& options, const std::vector<BenchRow>& rows, int ranks) {
  const double factor = busBandwidthFactor(options.collective, ranks);
  std::int64_t wrong = 0;
  double busbw = 0;
  int halves = 0;
  for (const BenchRow& row : rows)
    for (const BenchMeasurement* measurement : {&row.outOfPlace, &row.inPlace}) {
      wrong += measurement->wrong;
      busbw += gigabytesPerSecond(row.bytes, measurement->seconds) * factor;
      ++halves;
    }
  char text[160];
  std::snprintf(text, sizeof text, "# Out of bounds values : %lld %s\n# Avg bus bandwidth    : %g \n#\n",
                static_cast<long long>(wrong), wrong == 0 ? "OK" : "FAILED", halves > 0 ? busbw / halves : 0.0);
  return text;
}

}  // namespace ddl
