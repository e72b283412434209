#pragma once
// The memory a simulation will take, estimated before it starts, so that a case too large for this machine
// is refused with its estimate instead of dying of std::bad_alloc, the OOM killer or a failed mmap, minutes
// into it.
//
// Measured here (peak RSS of `ddlsim collective --topology flat-h200-edr --bytes 1M`): ring at 64, 256, 512
// and 1024 ranks, 37, 57, 117 and 346 MB, and halving-doubling at 1024, 2048 and 4096 ranks, 73, 131 and
// 294 MB. They fit, within 5%, 40 MB, plus 24 kB per rank, plus 160 bytes per step of the schedule held in
// memory (ring's 2P(P-1) steps dominate), plus 8 bytes per pair of netpoints (SimGrid's full zone keeps an
// N x N routing table: 134 MB at 4096 ranks, the largest term of halving-doubling there). The step engine
// has no actors and no routing table: ResNet-50's iteration with DDL 8x16x800 on 102,400 DGX H100 GPUs,
// 128 of them simulated, took 357 MB, 40 MB and 34 MB of it the base and its steps, about 2.7 kB a rank for
// the rest (tests/benchmarks/README.md).

#include <string>

#include "algorithms/schedule/schedule.hpp"
#include "sim/engine/engine.hpp"
#include "topologies/cluster.hpp"

namespace ddl {

constexpr double kSimulationBaseBytes = 40e6;
constexpr double kSimulationBytesPerRank = 24e3;
constexpr double kSimulationBytesPerStep = 160;
constexpr double kRoutingBytesPerNetpointPair = 8;
// Each rank is a SimGrid actor on a stack of its own: SimGrid's default contexts/stack-size, 8 MiB of
// address space of which a few pages are used, and a guard page, which splits it into two memory mappings.
constexpr double kActorStackBytes = 8.0 * 1024 * 1024;
constexpr int kMappingsPerActor = 2;
constexpr double kStepEngineBytesPerRank = 4e3;

// The SimGrid hosts a simulation on `cluster` creates: one per rank, and one memory sink per node whose GPUs
// share memory (SimulatedPlatform::connectReductions).
int netpointsOf(const Cluster& cluster);

// The programs of `heldRanks` ranks of `schedule` held at once (every rank's, or, where the step engine
// simulates ranks that do the same thing once, one period's: sim/step/step_symmetry.hpp), on a platform of
// `netpoints` SimGrid hosts (the ranks, and the memory sinks of nodes whose GPUs share memory), in `world`.
// Steps are counted on a few ranks (the first, the middle, the last) and the most of them taken for every
// held rank.
double estimatedSimulationBytes(const Schedule& schedule, int netpoints, int heldRanks,
                                EngineWorld world = EngineWorld::SimGridActors);
inline double estimatedSimulationBytes(const Schedule& schedule, int netpoints) {
  return estimatedSimulationBytes(schedule, netpoints, schedule.participants());
}

// InvalidArgument(field, "<what> needs about ...") if the simulation would not fit this machine's free
// memory, this process's address space (ulimit -v, SimGrid's actor stacks included) or, on SimGrid,
// vm.max_map_count.
void requireSimulationMemory(const Schedule& schedule, int netpoints, const std::string& field, const std::string& what,
                             int heldRanks, EngineWorld world = EngineWorld::SimGridActors);
inline void requireSimulationMemory(const Schedule& schedule, int netpoints, const std::string& field, const std::string& what) {
  requireSimulationMemory(schedule, netpoints, field, what, schedule.participants());
}

// The same for holding the schedule's programs only, without simulating them (ddlsim schedule).
void requireScheduleMemory(const Schedule& schedule, const std::string& field, const std::string& what);

}  // namespace ddl
