// How fast this machine's runtime sums on host memory: `reduceInto` (what every receive-reduce of ddlrun's MPI
// and threads transports calls) on float32 buffers from MIN to MAX bytes, doubling. A topology's
// `reduce_Bps` is this rate (bytes of the buffer reduced per second, γ = 1 / it), so a topology of this
// machine takes it from here rather than from an assumption.
// Per size: the median over REPEATS timings, each summing enough times to take at least 20 ms; the
// buffers are reused, so small sizes sum in cache, as a receive that just landed does.
// Not a test: machines are noisy, so run it several times and quote medians (tests/benchmarks/README.md).
//
//   reduce_benchmark [MIN_BYTES] [MAX_BYTES] [REPEATS]     default 4096 268435456 5

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/host_reduce.hpp"

namespace {

// Seconds per sum of `count` floats, from one timing of at least 20 ms.
double secondsPerSum(std::vector<float>& into, const std::vector<float>& from, std::size_t count) {
  using Clock = std::chrono::steady_clock;
  long long sums = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    ddl::reduceInto(into.data(), into.data(), from.data(), count, ddl::DataType::Float32, ddl::ReduceOp::Sum);
    ++sums;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < 0.02);
  return elapsed / static_cast<double>(sums);
}

}  // namespace

int main(int argc, char** argv) {
  const long long minBytes = argc > 1 ? std::atoll(argv[1]) : 4096;
  const long long maxBytes = argc > 2 ? std::atoll(argv[2]) : 268435456;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  if (argc > 4 || minBytes < 4 || maxBytes < minBytes || repeats < 1) {
    std::fprintf(stderr, "usage: %s [MIN_BYTES >= 4] [MAX_BYTES >= MIN] [REPEATS >= 1]\n", argv[0]);
    return 2;
  }
  const std::size_t maxCount = static_cast<std::size_t>(maxBytes / 4);
  // Values that stay finite however often they are summed: the rate of a sum does not depend on them.
  std::vector<float> into(maxCount, 1.0f), from(maxCount, 0.0f);
  std::printf("%14s %14s %12s\n", "bytes", "s per sum", "bytes/s");
  for (long long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
    const std::size_t count = static_cast<std::size_t>(bytes / 4);
    std::vector<double> timings;
    for (int repeat = 0; repeat < repeats; ++repeat) timings.push_back(secondsPerSum(into, from, count));
    std::nth_element(timings.begin(), timings.begin() + repeats / 2, timings.end());
    const double median = timings[static_cast<std::size_t>(repeats / 2)];
    std::printf("%14lld %14.4e %12.4e\n", bytes, median, static_cast<double>(count * 4) / median);
  }
  return 0;
}
