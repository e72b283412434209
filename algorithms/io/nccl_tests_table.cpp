#include "algorithms/io/nccl_tests_table.hpp"

#include <array>
#include <cstdio>

namespace ddl {
namespace {

constexpr std::string_view kRankAverageNames[] = {"rank0", "mean", "min", "max"};

// One half of a row: "  time  algbw  busbw  #wrong" (writeBenchmarkLineBody), or nccl-tests' null body.
std::string half(const NcclTestsHalf& half, std::int64_t bytes, double busFactor) {
  if (!half.present) return std::string(32, ' ');
  const double algbw = half.seconds > 0 ? static_cast<double>(bytes) / 1e9 / half.seconds : 0;
  char text[64];
  if (half.wrong)
    std::snprintf(text, sizeof text, "  %7s  %6s  %6s  %6g", ncclTestsNumber(half.seconds * 1e6, 7).c_str(),
                  ncclTestsNumber(algbw, 6).c_str(), ncclTestsNumber(algbw * busFactor, 6).c_str(), static_cast<double>(*half.wrong));
  else
    std::snprintf(text, sizeof text, "  %7s  %6s  %6s    N/A", ncclTestsNumber(half.seconds * 1e6, 7).c_str(),
                  ncclTestsNumber(algbw, 6).c_str(), ncclTestsNumber(algbw * busFactor, 6).c_str());
  return text;
}

}  // namespace

std::string_view toString(RankAverage average) { return kRankAverageNames[static_cast<int>(average)]; }

std::optional<RankAverage> rankAverageNamed(std::string_view name) {
  for (int a = 0; a < 4; ++a)
    if (kRankAverageNames[a] == name) return static_cast<RankAverage>(a);
  return std::nullopt;
}

std::vector<std::int64_t> ncclTestsSizes(CollectiveKind kind, const std::vector<std::int64_t>& sizes, int elementBytes, int ranks) {
  if (kind == CollectiveKind::Allreduce) return sizes;
  // nccl-tests' mask, 16 / elementBytes - 1: whole elements only where one is larger than 16 bytes.
  const std::int64_t perBlock = elementBytes < 16 ? 16 / elementBytes : 1;
  std::vector<std::int64_t> rounded;
  for (const std::int64_t bytes : sizes) {
    const std::int64_t block = bytes / elementBytes / ranks / perBlock * perBlock;
    const std::int64_t size = block * ranks * elementBytes;
    if (size > 0 && (rounded.empty() || rounded.back() != size)) rounded.push_back(size);
  }
  return rounded;
}

std::int64_t ncclTestsCount(CollectiveKind kind, std::int64_t bytes, int elementBytes, int ranks) {
  const std::int64_t elements = bytes / elementBytes;
  return kind == CollectiveKind::Allreduce ? elements : elements / ranks;
}

std::string ncclTestsRedop(CollectiveKind kind) { return kind == CollectiveKind::AllGather ? "none" : "sum"; }

std::string ncclTestsTypeName(int elementBytes) { return elementBytes == 4 ? "float" : std::to_string(elementBytes) + "-byte"; }

std::string ncclTestsNumber(double value, int width) {
  // As nccl-tests' getFloatStr: each try writes at most `width` characters and stands if it fit.
  char text[64];
  const auto size = static_cast<std::size_t>(width) + 1;
  if (std::snprintf(text, size, "%*.2f", width, value) <= width) return text;
  if (std::snprintf(text, size, "%*.1f", width, value) <= width) return text;
  if (std::snprintf(text, size, "%*.0f", width, value) <= width) return text;
  std::snprintf(text, size, width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return text;
}

std::string ncclTestsHeader(const NcclTestsRun& run) {
  std::string out = "# Collective test starting: " + run.program + "\n";
  char text[512];
  const bool byFactor = run.stepBytes <= 0;
  char step[32];
  if (byFactor) std::snprintf(step, sizeof step, "%g(factor)", run.factor);
  else std::snprintf(step, sizeof step, "%lld(bytes)", static_cast<long long>(run.stepBytes));
  std::snprintf(text, sizeof text,
                "# nThread 1 nGpus 1 minBytes %lld maxBytes %lld step: %s warmup iters: %d iters: %d agg iters: 1 "
                "validation: %d graph: 0 unalign: %d\n",
                static_cast<long long>(run.minBytes), static_cast<long long>(run.maxBytes), step, run.warmup, run.iterations,
                run.validation ? 1 : 0, run.unalign);
  out += text;
  for (const std::string& comment : run.comments) out += "# " + comment + "\n";
  out += "#\n# Using devices\n";
  for (std::size_t rank = 0; rank < run.devices.size(); ++rank) {
    std::snprintf(text, sizeof text, "#  Rank %2zu Group %2d %s\n", rank, 0, run.devices[rank].c_str());
    out += text;
  }
  out += "#\n";
  std::snprintf(text, sizeof text, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          ", "",
                "", "", "", "");
  out += text;
  if (!run.baselineLibrary.empty()) out += "  " + run.baselineLibrary + "'s own, in place";
  out += "\n";
  // The names line and the units line: five leading columns, then four per half (and the baseline's),
  // each followed by nccl-tests' "%*s" of its timestamps, none here.
  const int halves = run.baselineLibrary.empty() ? 2 : 3;
  auto columns = [&](const std::array<const char*, 5>& lead, const std::array<const char*, 4>& half) {
    std::snprintf(text, sizeof text, "# %10s  %12s  %8s  %6s  %6s", lead[0], lead[1], lead[2], lead[3], lead[4]);
    out += text;
    for (int h = 0; h < halves; ++h) {
      std::snprintf(text, sizeof text, "  %7s  %6s  %6s  %6s", half[0], half[1], half[2], half[3]);
      out += text;
    }
    out += " \n";
  };
  columns({"size", "count", "type", "redop", "root"}, {"time", "algbw", "busbw", "#wrong"});
  columns({"(B)", "(elements)", "", "", ""}, {"(us)", "(GB/s)", "(GB/s)", ""});
  return out;
}

std::string ncclTestsRow(const NcclTestsRow& row, double busFactor) {
  char text[128];
  // nccl-tests prints the root through "%6i" into a string, then "%6s": -1 for collectives without one.
  std::snprintf(text, sizeof text, "%12lld  %12lld  %8s  %6s  %6d", static_cast<long long>(row.bytes),
                static_cast<long long>(row.count), row.type.c_str(), row.redop.c_str(), -1);
  std::string line = text + half(row.outOfPlace, row.bytes, busFactor) + half(row.inPlace, row.bytes, busFactor);
  if (row.baseline) line += half(*row.baseline, row.bytes, busFactor);
  return (row.comment.empty() ? "" : "#  " + row.comment + "\n") + line + "\n";
}

std::string ncclTestsFooter(const NcclTestsRun& run, const std::vector<NcclTestsRow>& rows, double busFactor) {
  std::int64_t wrong = 0;
  double busbw = 0;
  int halves = 0;
  for (const NcclTestsRow& row : rows)
    for (const NcclTestsHalf* measured : {&row.outOfPlace, &row.inPlace}) {
      if (!measured->present) continue;
      wrong += measured->wrong.value_or(0);
      busbw += (measured->seconds > 0 ? static_cast<double>(row.bytes) / 1e9 / measured->seconds : 0) * busFactor;
      ++halves;
    }
  char text[256];
  std::snprintf(text, sizeof text, "# %-20s : %lld %s\n# %-20s : %g %s\n#\n# Collective test concluded: %s\n",
                "Out of bounds values", static_cast<long long>(wrong), wrong ? "FAILED" : "OK", "Avg bus bandwidth",
                halves > 0 ? busbw / halves : 0.0, "", run.program.c_str());
  return text;
}

}  // namespace ddl
