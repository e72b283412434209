#pragma once
// What NCCL's two NVLS allreduces share (nccl-nvls on one node, nccl-nvls-tree across nodes): a node's GPUs
// load each shard of a chunk through the NVSwitch's multicast address, the switch sums the loads and returns
// the sum to the shard's owner (multimem.ld_reduce), and the owner's store of a result is written by the switch
// to every GPU of the node (multimem.st). The switch is a participant of the schedule, after the ranks
// (CollectiveSpec::switches), one per node; it starts with nothing and reduces what it receives.

#include <cstdint>

#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/schedule/group.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {

// NCCL's nvlsChunkSize: the shard one GPU loads, reduces and stores per step of NVLS (src/transport/nvls.cc,
// NCCL_NVLS_CHUNKSIZE, 128 KiB by default): the NVLS algorithms' --chunk-bytes.
inline constexpr std::int64_t kNcclNvlsDefaultShardBytes = 128 * 1024;

// NVLS-tree's from 4 nodes (src/enqueue.cc calcCollChunking: NCCL_NVLSTREE_MAX_CHUNKSIZE, by default 64 KiB
// where nNodes >= 4): the smallest shard either NVLS algorithm takes by default.
inline constexpr std::int64_t kNcclNvlsTreeManyNodesShardBytes = 64 * 1024;

inline std::int64_t nvlsShardBytesOf(const AlgorithmOptions& options) { return options.chunkBytes.value_or(kNcclNvlsDefaultShardBytes); }

// Chunks of a part cut into `shards` shards each: enough that no shard exceeds the shard size, at least one.
// makeSchedule has refused counts whose steps would not fit a program (registry.cpp), so the count fits an int.
int nvlsChunkCount(Elements partElements, int shards, int elementBytes, const AlgorithmOptions& options);

// InvalidArgument naming chunk-bytes unless it is at least 1, or channels unless `irChannelsPerChannel` IR
// channels for each of the options' channels fit the numbers a schedule gives its channels.
void validateNvlsShards(const AlgorithmOptions& options, std::int64_t irChannelsPerChannel);

// The IR channels of shard index m in one NVLS channel, from `base`: the switch serves every GPU's loads and
// stores at once, so no shard's traffic waits in line behind another's, as it would on one IR channel (one
// thread, which posts its steps in program order).
struct NvlsShardChannels {
  int shards;
  int base;
  Channel up(int m) const { return static_cast<Channel>(base + m); }
  Channel down(int m) const { return static_cast<Channel>(base + shards + m); }
};

// A GPU of `node` loads every shard of `chunk` through the switch, and receives the sum of its own.
void appendNvlsLoads(ProgramBuilder& builder, const Group& node, Rank nvswitch, Range chunk, NvlsShardChannels channels);
// A GPU of `node` stores its own shard of `chunk` through the switch, and receives every shard's store.
void appendNvlsStores(ProgramBuilder& builder, const Group& node, Rank nvswitch, Range chunk, NvlsShardChannels channels);
// The switch of `node` over `chunks` chunks of `part`: per shard, the sum of every GPU's load to the shard's
// owner, then the owner's store to every GPU.
void appendNvlsSwitch(ProgramBuilder& builder, const Group& node, Range part, int chunks, NvlsShardChannels channels);

}  // namespace ddl
