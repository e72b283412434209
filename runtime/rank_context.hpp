#pragma once
// What one rank of a ddlrun job works with, whatever runs it: the job's World, the Transport that moves
// its bytes, where its compute is emulated, and the library collective to compare with, if any.

#include <algorithm>
#include <span>

#include "algorithms/schedule/program.hpp"
#include "runtime/bench/bench_baseline.hpp"
#include "runtime/compute/compute_emulator.hpp"
#include "runtime/transport.hpp"
#include "runtime/world.hpp"

namespace ddl {

struct RankContext {
  World& world;
  Transport& transport;
  ComputeEmulator& compute;
  BenchBaseline* baseline = nullptr;  // set by --baseline
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
