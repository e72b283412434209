#pragma once
// What one rank of a ddlrun job works with, whatever runs it: the job's World, the Transport that moves
// its bytes, where its compute is emulated, and the collectives of the library under the transport, if any;
// and what a transport's launcher is given to start the job's ranks.

#include <algorithm>
#include <functional>
#include <span>

#include "algorithms/schedule/program.hpp"
#include "runtime/library_collectives.hpp"
#include "runtime/compute/host_compute.hpp"
#include "runtime/transport.hpp"
#include "runtime/world.hpp"

namespace ddl {

struct RankContext {
  World& world;
  Transport& transport;
  ComputeEmulator& compute;
  LibraryCollectives* library = nullptr;  // MPI's or NCCL's own collectives; none over threads or CUDA peer copies
};

// What each rank runs; returns its exit status.
using RankJob = std::function<int(RankContext&)>;

class SilenceWatchdog;

struct JobOptions {
  int ranks = 0;  // transports that run every rank in one process: how many
  // The MPI and NCCL jobs' watchdog, owned by the caller: every wait on other ranks is watched by it.
  SilenceWatchdog* watchdog = nullptr;
  // Jobs on host memory: how their ranks' compute is reproduced. Only `ddlrun train` computes, and asks
  // for what --host-compute says (busy by default); others keep the sleeping emulator, which has no thread.
  HostCompute hostCompute = HostCompute::Sleep;
};

// Every rank of `world` calls it together before running `programs`: `transport` reserves every channel
// any rank's program uses.
inline void reserveChannels(World& world, Transport& transport, std::span<const Program> programs) {
  double channels = 0;
  for (const Program& program : programs)
    for (int stream = 0; stream < program.streamCount(); ++stream)
      channels = std::max(channels, static_cast<double>(program.streamKey(stream).channel) + 1);
  transport.reserveChannels(static_cast<int>(world.maxOverRanks(channels)));
}

}  // namespace ddl
