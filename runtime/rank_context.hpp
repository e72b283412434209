#pragma once
// What one rank of a ddlrun job works with, whatever runs it: the job's World, the Transport that moves
// its bytes, where its compute is emulated, and the collectives of the library under the transport, if any;
// and what a transport's launcher is given to start the job's ranks.

#include <algorithm>
#include <functional>
#include <span>
#include <vector>

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

// The channels `programs` send and receive on: 0 .. the result - 1.
inline int channelsOf(std::span<const Program> programs) {
  int channels = 0;
  for (const Program& program : programs)
    for (int stream = 0; stream < program.streamCount(); ++stream)
      channels = std::max(channels, static_cast<int>(program.streamKey(stream).channel) + 1);
  return channels;
}

// The peers each channel of `programs` (this rank's) exchanges messages with, sorted, each once.
inline Transport::ChannelPeers channelPeers(std::span<const Program> programs) {
  Transport::ChannelPeers peers;
  for (const Program& program : programs)
    for (int stream = 0; stream < program.streamCount(); ++stream) {
      const StreamKey key = program.streamKey(stream);
      if (peers.size() <= static_cast<std::size_t>(key.channel)) peers.resize(static_cast<std::size_t>(key.channel) + 1);
      peers[static_cast<std::size_t>(key.channel)].push_back(key.peer);
    }
  for (std::vector<Rank>& onChannel : peers) {
    std::sort(onChannel.begin(), onChannel.end());
    onChannel.erase(std::unique(onChannel.begin(), onChannel.end()), onChannel.end());
  }
  return peers;
}

// Every rank of `world` calls it together before running `programs`: `transport` reserves every channel
// any rank's program uses, and connects this rank to its programs' peers (Transport::connectPeers).
inline void reserveChannels(World& world, Transport& transport, std::span<const Program> programs) {
  transport.reserveChannels(static_cast<int>(world.maxOverRanks(channelsOf(programs))));
  transport.connectPeers(channelPeers(programs));
}

}  // namespace ddl
