// Time and peak memory to generate and to verify one schedule: the figures the foundation issue asks for.
// Not a test: machines are noisy, so run it several times and quote medians (see tests/benchmarks/README.md).
//
//   schedule_benchmark generate|verify ALGORITHM RANKS ELEMENTS [DIMS]

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/verify/verifier.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s generate|verify ALGORITHM RANKS ELEMENTS [DIMS]\n", argv[0]);
    return 2;
  }
  const std::string phase = argv[1];
  ddl::AlgorithmOptions options;
  if (argc > 5) options.dims = ddl::parseDims(argv[5]);
  const ddl::CollectiveSpec spec{ddl::CollectiveKind::Allreduce, std::atoi(argv[3]), std::atoll(argv[4]), 4};
  const ddl::Schedule schedule =
      ddl::makeSchedule(ddl::findAlgorithm(spec.kind, argv[2]), spec, options);

  const auto start = std::chrono::steady_clock::now();
  long long steps = 0;
  bool ok = true;
  if (phase == "generate") {
    // One rank's program at a time, as a backend would.
    for (ddl::Rank rank = 0; rank < spec.ranks; ++rank) steps += schedule.program(rank).size();
  } else {
    const ddl::VerificationReport report = ddl::verify(schedule);
    ok = report.ok();
    if (!ok) std::fprintf(stderr, "%s\n", report.message.c_str());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%s %s P=%d: %.3f s, peak RSS %.1f MiB%s%s\n", phase.c_str(), schedule.description().c_str(),
              spec.ranks, seconds, usage.ru_maxrss / 1024.0,
              steps ? (", " + std::to_string(steps) + " steps").c_str() : "", ok ? "" : ", FAILED");
  return ok ? 0 : 1;
}
