#include "sim/sweep/simulation_memory.hpp"

#include <algorithm>
#include <fstream>

#include "common/invalid_argument.hpp"
#include "common/machine_memory.hpp"

namespace ddl {
namespace {

// The steps of `heldRanks` programs: the ranks' (the largest of three, for all of them), and where the engine
// holds every participant, the switches', each of which alone may hold as many steps as its ranks together.
// Every switch serves a node of as many ranks over the whole buffer, so the first one's counts for each.
double heldSteps(const Schedule& schedule, int heldRanks) {
  const int ranks = schedule.ranks();
  std::int64_t steps = 0;
  for (Rank rank : {0, ranks / 2, ranks - 1}) steps = std::max<std::int64_t>(steps, schedule.program(rank).size());
  double held = static_cast<double>(steps) * std::min(heldRanks, ranks);
  if (heldRanks > ranks && schedule.spec().switches > 0)
    held += static_cast<double>(schedule.program(ranks).size()) * schedule.spec().switches;
  return held;
}

// The most memory mappings one process may have (vm.max_map_count; Linux's default where unreadable).
long maxMapCount() {
  std::ifstream file("/proc/sys/vm/max_map_count");
  long count = 65530;
  file >> count;
  return count;
}

}  // namespace

int netpointsOf(const Cluster& cluster) {
  return cluster.hosts() + (cluster.topology().node.sharedMemory ? cluster.nodes() : 0);
}

double estimatedSimulationBytes(const Schedule& schedule, int netpoints, int heldRanks, EngineWorld world) {
  const double programs = kSimulationBaseBytes + kSimulationBytesPerStep * heldSteps(schedule, heldRanks);
  if (world == EngineWorld::StepEvents) return programs + kStepEngineBytesPerRank * schedule.participants();
  return programs + kSimulationBytesPerRank * schedule.participants() + kRoutingBytesPerNetpointPair * static_cast<double>(netpoints) * netpoints;
}

void requireSimulationMemory(const Schedule& schedule, int netpoints, const std::string& field, const std::string& what,
                             int heldRanks, EngineWorld world) {
  const double bytes = estimatedSimulationBytes(schedule, netpoints, heldRanks, world);
  if (world == EngineWorld::StepEvents) {
    requireMemory(bytes, field, what);
    return;
  }
  requireMemory(bytes, field, what, bytes + kActorStackBytes * schedule.participants());
  // A margin for SimGrid's and the libraries' own mappings.
  const long mappings = static_cast<long>(kMappingsPerActor) * schedule.participants() + 1000;
  if (mappings > maxMapCount())
    throw InvalidArgument(field, what + " maps about " + std::to_string(mappings) + " memory areas (a stack and its guard per " +
                                     "rank), more than vm.max_map_count, " + std::to_string(maxMapCount()) +
                                     ", allows: raise it with sysctl, or simulate fewer ranks");
}

void requireScheduleMemory(const Schedule& schedule, const std::string& field, const std::string& what) {
  requireMemory(kSimulationBaseBytes + kSimulationBytesPerStep * heldSteps(schedule, schedule.participants()), field, what);
}

}  // namespace ddl
