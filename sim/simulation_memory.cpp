#include "sim/simulation_memory.hpp"

#include <algorithm>

#include "algorithms/io/machine_memory.hpp"

namespace ddl {

double estimatedSimulationBytes(const Schedule& schedule) {
  const int ranks = schedule.ranks();
  std::int64_t steps = 0;
  for (Rank rank : {0, ranks / 2, ranks - 1}) steps = std::max<std::int64_t>(steps, schedule.program(rank).size());
  return kSimulationBaseBytes + kSimulationBytesPerRank * ranks + kSimulationBytesPerStep * static_cast<double>(steps) * ranks;
}

void requireSimulationMemory(const Schedule& schedule, const std::string& field, const std::string& what) {
  const double bytes = estimatedSimulationBytes(schedule);
  requireMemory(bytes, field, what, bytes + kActorStackBytes * schedule.ranks());
}

}  // namespace ddl
