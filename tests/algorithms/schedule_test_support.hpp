#pragma once
// Shared helpers of the algorithm tests: building schedules by name and the element counts every
// algorithm is verified with.

#include <vector>

#include "algorithms/collectives/registry.hpp"

namespace ddl::testing {

inline Schedule makeSchedule(CollectiveKind kind, const std::string& name, int ranks, Elements elements,
                             const AlgorithmOptions& options = {}) {
  return ddl::makeSchedule(findAlgorithm(kind, name), {kind, ranks, elements, 4}, options);
}

inline Schedule allreduce(const std::string& name, int ranks, Elements elements, const AlgorithmOptions& options = {}) {
  return makeSchedule(CollectiveKind::Allreduce, name, ranks, elements, options);
}

// Two ranks that each wait for the other's data before sending their own: a schedule that can never end.
inline Schedule mutuallyWaitingSchedule() {
  std::vector<Program> programs;
  for (Rank rank = 0; rank < 2; ++rank) {
    ProgramBuilder builder(rank, 4);
    builder.receiveCopy(1 - rank, {0, 4});
    builder.send(1 - rank, {0, 4});
    programs.push_back(std::move(builder).finish());
  }
  return Schedule::fromPrograms({CollectiveKind::Allreduce, 2, 4, 4}, "deadlock", std::move(programs));
}

inline bool isPrime(Elements n) {
  if (n < 2) return false;
  for (Elements d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

// 0, 1, P-1, P, the first prime above P, and 10^6+3 (itself prime): empty, tiny, fewer elements than
// ranks, one per rank, sizes no block count divides, and a realistic buffer.
inline std::vector<Elements> elementCountsFor(int ranks) {
  Elements prime = ranks + 1;
  while (!isPrime(prime)) ++prime;
  return {0, 1, ranks - 1, ranks, prime, 1'000'003};
}

// Every way to write `ranks` as an ordered product of 1 to `maxDims` factors of at least 2 (just {1} for 1).
inline std::vector<std::vector<int>> orderedFactorizations(int ranks, int maxDims) {
  if (ranks == 1) return {{1}};
  std::vector<std::vector<int>> result;
  std::vector<int> current;
  auto extend = [&](auto&& self, int remaining) -> void {
    if (remaining == 1) {
      result.push_back(current);
      return;
    }
    if (static_cast<int>(current.size()) == maxDims) return;
    for (int factor = 2; factor <= remaining; ++factor) {
      if (remaining % factor != 0) continue;
      current.push_back(factor);
      self(self, remaining / factor);
      current.pop_back();
    }
  };
  extend(extend, ranks);
  return result;
}

inline std::vector<int> divisorsOf(int n) {
  std::vector<int> divisors;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) divisors.push_back(d);
  return divisors;
}

}  // namespace ddl::testing
