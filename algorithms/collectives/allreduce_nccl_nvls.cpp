// nccl-nvls: NCCL's NVLS allreduce on one node (src/device/all_reduce.h runRing<NCCL_ALGO_NVLS>,
// src/transport/nvls.cc, v2.23.4-1, read), where the NVSwitch itself sums. Each GPU maps the buffer through
// the switch's multicast address. For its shard of each chunk a GPU issues multimem.ld_reduce: the switch
// reads that shard from every GPU (the GPU's own included), sums as the data passes, and returns the sum;
// the GPU then issues multimem.st of the sum, which the switch writes to every GPU (itself included). So each
// GPU's NVLink carries S (1 + 1/N) in each direction for a buffer of S on N GPUs, against the ring's
// 2 S (N - 1) / N: the algorithm bandwidth is the link's N / (N + 1), and nccl-tests' busbw the link's
// 2 (N - 1) / (N + 1), above the ring's for N > 2.
//
// Here the switch is a participant after the ranks (CollectiveSpec::switches) that starts with nothing and
// reduces what it receives: every GPU sends each shard m of a chunk to it ("up"), it sends the sum of shard m
// to GPU m, GPU m sends that back ("down"), and it sends it to every GPU. Each shard index has an up and a
// down IR channel of its own within each NVLS channel, so that no load or store waits behind another's (the
// switch serves all GPUs at once, and NCCL's kernel has warps of its own for the reduction and the
// broadcast). The buffer is cut into C parts, one per channel, and each part into chunks of N shards of up
// to NCCL_NVLS_CHUNKSIZE (128 KiB) each.

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/nccl_channels.hpp"
#include "algorithms/collectives/nvls_shards.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

void validate(int ranks, const AlgorithmOptions& options) {
  validateNcclChannels(ranks, options);
  validateNvlsShards(options, std::int64_t{2} * ranks);  // an up and a down IR channel per rank
}

// The switch follows the group's ranks (makeSchedule makes it participant `ranks`).
Rank switchOf(const Group& group) { return group.rank(group.size); }

NvlsShardChannels channelsOf(const Group& group, int nvlsChannel) { return {group.size, nvlsChannel * 2 * group.size}; }

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options, int elementBytes) {
  const Rank nvswitch = switchOf(group);
  const bool isSwitch = builder.self() == nvswitch;
  if ((!isSwitch && !group.contains(builder.self())) || group.size < 2) return;
  for (int c = 0; c < ncclChannelsOf(options); ++c) {
    const Range part = blockOf(range, ncclChannelsOf(options), c);
    const int chunks = nvlsChunkCount(part.count, group.size, elementBytes, options);
    if (isSwitch) {
      appendNvlsSwitch(builder, group, part, chunks, channelsOf(group, c));
      continue;
    }
    for (int k = 0; k < chunks; ++k) {
      appendNvlsLoads(builder, group, nvswitch, blockOf(part, chunks, k), channelsOf(group, c));
      appendNvlsStores(builder, group, nvswitch, blockOf(part, chunks, k), channelsOf(group, c));
    }
  }
}

// The walk of shard m's chunks in one channel's part under ProgramExecution's rules
// (algorithms/execution/program_execution.hpp): a step is posted once the step before it on its IR channel is
// posted, the step before it in its stream has completed and its dependencies have completed (a
// receive-reduce's reduction waits for them instead); a transfer starts once both ends are posted and takes
// α + e·β; a reduction e·γ (the switch's too). Times are when each step of chunk k was posted or completed.
double shardWalkSeconds(int ranks, int m, Range part, int chunks, const CostModel& model, int elementBytes) {
  const LinkCost& link = model.link(0);
  const auto n = static_cast<std::size_t>(ranks);
  std::vector<double> arrived(n, 0);        // GPU j's load of the shard at the switch
  std::vector<double> broadcast(n, 0);      // the switch's store of the shard at GPU j
  double reduced = 0, returned = 0, stored = 0;
  double switchSendPosted = 0, ownReceivePosted = 0, ownBroadcastReceivePosted = 0, lastBroadcastPosted = 0;
  double end = 0;
  for (int k = 0; k < chunks; ++k) {
    const Range shard = blockOf(blockOf(part, chunks, k), ranks, m);
    if (shard.count == 0) continue;
    const double bytes = static_cast<double>(shard.count) * elementBytes;
    const double message = link.messageSeconds(bytes);
    // Up: every GPU's load, after its previous one (GPU m's after it posted the receive of its last sum), and
    // the switch's receives, after it posted the previous sum's send; the sums, one reduction after another.
    const double receivesPosted = switchSendPosted;
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double sendPosted = static_cast<int>(j) == m ? std::max(arrived[j], ownReceivePosted) : arrived[j];
      arrived[j] = std::max(sendPosted, receivesPosted) + message;
      sum = j == 0 ? arrived[0] : std::max(arrived[j], sum) + model.reduceSeconds(bytes);
    }
    reduced = sum;
    switchSendPosted = std::max(reduced, returned);
    ownReceivePosted = std::max(arrived[static_cast<std::size_t>(m)], returned);
    returned = std::max(switchSendPosted, ownReceivePosted) + message;
    // Down: GPU m's store of the sum, after its receive of the previous broadcast was posted; the switch's
    // receive of it, after its previous broadcast sends were posted; then the broadcast, one send per GPU in
    // order, each after its previous send to that GPU.
    const double storePosted = std::max({returned, stored, ownBroadcastReceivePosted});
    const double storeReceivePosted = std::max({lastBroadcastPosted, returned, stored});
    stored = std::max(storePosted, storeReceivePosted) + message;
    double sendPosted = stored;
    for (std::size_t j = 0; j < n; ++j) {
      sendPosted = std::max(sendPosted, broadcast[j]);
      const double receivePosted = static_cast<int>(j) == m ? std::max(stored, broadcast[j]) : std::max(broadcast[j], arrived[j]);
      if (static_cast<int>(j) == m) ownBroadcastReceivePosted = receivePosted;
      broadcast[j] = std::max(sendPosted, receivePosted) + message;
      end = std::max(end, broadcast[j]);
    }
    lastBroadcastPosted = sendPosted;
  }
  return end;
}

double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  if (spec.ranks < 2 || spec.elements == 0) return 0;
  const int channels = ncclChannelsOf(options);
  double end = 0;
  for (int c = 0; c < channels; ++c) {
    const Range part = blockOf(spec.buffer(), channels, c);
    const int chunks = nvlsChunkCount(part.count, spec.ranks, spec.elementBytes, options);
    for (int m = 0; m < spec.ranks; ++m) end = std::max(end, shardWalkSeconds(spec.ranks, m, part, chunks, model, spec.elementBytes));
  }
  return end;
}

std::string describe(const AlgorithmOptions& options) {
  const int channels = ncclChannelsOf(options);
  return "nccl-nvls " + std::to_string(channels) + (channels == 1 ? " channel, " : " channels, ") +
         std::to_string(nvlsShardBytesOf(options)) + " B shards";
}

}  // namespace

const AlgorithmDefinition kNcclNvlsAllreduce{
    .name = "nccl-nvls",
    .collective = CollectiveKind::Allreduce,
    .summary = "NCCL's NVLS on one node: the NVSwitch sums each shard as GPUs load it through its multicast address, "
               "and writes each GPU's store of the sum to every GPU",
    .options = kChannels | kChunkBytes,
    .switches = [](int, const AlgorithmOptions&) { return 1; },
    .validate = validate,
    .describe = describe,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
