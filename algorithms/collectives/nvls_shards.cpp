#include "algorithms/collectives/nvls_shards.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "algorithms/collectives/nccl_channels.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

int nvlsChunkCount(Elements partElements, int shards, int elementBytes, const AlgorithmOptions& options) {
  const double bytes = static_cast<double>(partElements) * elementBytes;
  const double chunk = static_cast<double>(nvlsShardBytesOf(options)) * shards;
  return std::max(1, static_cast<int>(std::ceil(bytes / chunk)));
}

void validateNvlsShards(const AlgorithmOptions& options, std::int64_t irChannelsPerChannel) {
  checkChunkBytes(options);
  const std::int64_t irChannels = irChannelsPerChannel * ncclChannelsOf(options);
  if (irChannels > std::numeric_limits<Channel>::max() + std::int64_t{1})
    throw InvalidArgument("channels", std::to_string(ncclChannelsOf(options)) + " channels take " + std::to_string(irChannels) +
                                          " connections, more than the " + std::to_string(std::numeric_limits<Channel>::max() + 1) +
                                          " a schedule numbers");
}

void appendNvlsLoads(ProgramBuilder& builder, const Group& node, Rank nvswitch, Range chunk, NvlsShardChannels channels) {
  for (int m = 0; m < node.size; ++m)
    if (const Range shard = blockOf(chunk, node.size, m); shard.count > 0) builder.send(nvswitch, shard, channels.up(m));
  const int me = node.indexOf(builder.self());
  if (const Range mine = blockOf(chunk, node.size, me); mine.count > 0) builder.receiveCopy(nvswitch, mine, channels.up(me));
}

void appendNvlsStores(ProgramBuilder& builder, const Group& node, Rank nvswitch, Range chunk, NvlsShardChannels channels) {
  const int me = node.indexOf(builder.self());
  if (const Range mine = blockOf(chunk, node.size, me); mine.count > 0) builder.send(nvswitch, mine, channels.down(me));
  for (int m = 0; m < node.size; ++m)
    if (const Range shard = blockOf(chunk, node.size, m); shard.count > 0) builder.receiveCopy(nvswitch, shard, channels.down(m));
}

void appendNvlsSwitch(ProgramBuilder& builder, const Group& node, Range part, int chunks, NvlsShardChannels channels) {
  for (int k = 0; k < chunks; ++k) {
    const Range chunk = blockOf(part, chunks, k);
    for (int m = 0; m < node.size; ++m) {
      const Range shard = blockOf(chunk, node.size, m);
      if (shard.count == 0) continue;
      builder.receiveCopy(node.rank(0), shard, channels.up(m));
      for (int j = 1; j < node.size; ++j) builder.receiveReduce(node.rank(j), shard, channels.up(m));
      builder.send(node.rank(m), shard, channels.up(m));
      builder.receiveCopy(node.rank(m), shard, channels.down(m));
      for (int j = 0; j < node.size; ++j) builder.send(node.rank(j), shard, channels.down(m));
    }
  }
}

}  // namespace ddl
