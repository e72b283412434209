#pragma once
// The memory a simulation will take, estimated before it starts, so that a case too large for this machine
// is refused with its estimate instead of dying of std::bad_alloc, or the OOM killer, minutes into it.
//
// Measured here (peak RSS of `ddlsim collective --algorithm ring --topology flat-h200-edr --bytes 1M`):
// 37 MB at 64 ranks, 57 MB at 256, 117 MB at 512, 346 MB at 1024 ranks. Each step of the schedule held in
// memory costs about 150 bytes (146 to 152 between those points, programs and SimGrid's activity together),
// and each rank about 32 kB (halving-doubling at 1024 ranks, whose 20,000 steps hardly count: 73 MB).

#include <string>

#include "algorithms/schedule/schedule.hpp"

namespace ddl {

// Each rank is a SimGrid actor on a stack of its own: SimGrid's default contexts/stack-size, 8 MiB of
// address space, of which a few pages are ever used (resident cost is in kSimulationBytesPerRank).
constexpr double kActorStackBytes = 8.0 * 1024 * 1024;
constexpr double kSimulationBaseBytes = 40e6;
constexpr double kSimulationBytesPerRank = 32e3;
constexpr double kSimulationBytesPerStep = 160;

// Every rank's program of `schedule` in memory at once, as a simulation holds them; the steps are counted
// on a few ranks (the first, the middle and the last) and the most of them taken for every rank.
double estimatedSimulationBytes(const Schedule& schedule);

// InvalidArgument(field, "<what> needs about ...") if the estimate exceeds what this machine has free.
void requireSimulationMemory(const Schedule& schedule, const std::string& field, const std::string& what);

}  // namespace ddl
