// The memory a simulation is estimated to need before it starts (sim/sweep/simulation_memory.hpp), by the
// world its engine builds: SimGrid's holds an actor per rank and an N x N routing table, the step engine's
// neither, so a point the step engine simulates through 128 ranks standing for 102,400 is not refused for
// SimGrid's sake.

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"
#include "sim/sweep/simulation_memory.hpp"

namespace ddl::testing {
namespace {

// ddl 8x16x800 over ResNet-50's 25 MiB bucket on 102,400 GPUs: 3,284 steps a rank (a send and a receive
// for each of 2 x (7 + 15 + 799) hops).
Schedule ddlOn102400() {
  AlgorithmOptions options;
  options.dims = std::vector<int>{8, 16, 800};
  return makeSchedule(kDdlAllreduce, {CollectiveKind::Allreduce, 102400, 6553600, 4}, options);
}

TEST(SimulationMemory, TheStepEngineNeedsNeitherActorsNorSimGridsRoutingTable) {
  const Schedule schedule = ddlOn102400();
  const int netpoints = 102400;
  ASSERT_EQ(schedule.program(0).size(), 3284u);
  const double steps = 3284.0 * 128;
  const double step = estimatedSimulationBytes(schedule, netpoints, 128, EngineWorld::StepEvents);
  EXPECT_DOUBLE_EQ(step, kSimulationBaseBytes + kSimulationBytesPerStep * steps + kStepEngineBytesPerRank * 102400);
  EXPECT_LT(step, 1e9);
  // SimGrid's full zone: 8 bytes per pair of its 102,400 hosts, 84 GB.
  const double simgrid = estimatedSimulationBytes(schedule, netpoints, 128, EngineWorld::SimGridActors);
  EXPECT_DOUBLE_EQ(simgrid - step, kRoutingBytesPerNetpointPair * 102400.0 * 102400 +
                                       (kSimulationBytesPerRank - kStepEngineBytesPerRank) * 102400);
}

TEST(SimulationMemory, OnlySimGridsActorsCountAgainstTheMemoryMappingsAllowed) {
  // 102,400 actors map about 204,800 areas, past Linux's default vm.max_map_count of 65,530; with memory to
  // spare for both, only SimGrid's world is refused, naming the field.
  long mapCount = 65530;
  std::ifstream("/proc/sys/vm/max_map_count") >> mapCount;
  if (mapCount > 2 * 102400 + 1000) GTEST_SKIP() << "vm.max_map_count here is " << mapCount << ": 102,400 actors fit it";
  ASSERT_EQ(setenv("DDLSCALE_MEMORY_BYTES", "1000000000000", 1), 0);
  const Schedule schedule = ddlOn102400();
  EXPECT_NO_THROW(requireSimulationMemory(schedule, 102400, "--gpus", "simulating it", 128, EngineWorld::StepEvents));
  try {
    requireSimulationMemory(schedule, 102400, "--gpus", "simulating it", 128, EngineWorld::SimGridActors);
    ADD_FAILURE() << "SimGrid's world of 102,400 actors was not refused";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "--gpus");
  }
  unsetenv("DDLSCALE_MEMORY_BYTES");
}

}  // namespace
}  // namespace ddl::testing
