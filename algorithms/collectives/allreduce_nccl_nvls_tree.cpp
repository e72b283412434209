// nccl-nvls-tree: NCCL's NVLS-tree allreduce across nodes whose NVSwitch has multicast (src/device/all_reduce.h
// RunWorkColl<..., NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE>, src/graph/connect.cc connectNvls, v2.23.4-1, read).
// Within a node it is nccl-nvls: every GPU loads each shard of a chunk through the node's switch, which sums
// the loads and returns the sum to the shard's owner, its head (local rank m for shard m; NCCL's NVLS heads
// are the GPUs with a NIC, every GPU on DGX H100). The head does not store the node's sum at once: it adds the
// sums its children's nodes send it, sends the result to its parent, receives the total back, passes it to its
// children, and only then stores it through the switch, which writes it to every GPU of the node. The trees
// join the same shard's heads across nodes: NCCL's double binary tree over the nodes, tree c mod 2 on NVLS
// channel c (connectNvls; nccl-tree's trees). So each shard crosses the network on its own head's NIC alone,
// and a NIC carries 1/(ranks per node) of the buffer each way per tree hop, where the ring carries the
// buffer twice over: on two nodes NVLS-tree's ring-equivalent busbw exceeds what the NICs carry.
//
// The participants are the ranks, then one switch per node (CollectiveSpec::switches); each switch runs
// nccl-nvls's switch program over its own node. Each NVLS channel has, besides nccl-nvls's up and down IR
// channels per shard index, IR channels up the tree and down it of its own, so that a head's network traffic
// waits behind no load or store (NCCL's kernel has warps of its own for each); and NCCL_STEPS (8) of each, the
// chunks taking them in turn, because NCCL's network proxy keeps that many steps of a connection in flight
// (src/include/device.h, v2.23.4-1): a hop's latency overlaps the messages behind it instead of adding to
// each, which matters where it is long beside a shard's transfer (10 us on EFA against 3 us for 128 KiB).

#include <string>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/nccl_channels.hpp"
#include "algorithms/collectives/nvls_shards.hpp"
#include "algorithms/cost/schedule_walk.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

int nodesOf(int ranks, const AlgorithmOptions& options) { return ranks / ncclRanksPerNodeOf(options); }

// NCCL_STEPS: the steps of one connection NCCL keeps in flight.
constexpr int kStepsInFlight = 8;

// Per NVLS channel: an up and a down IR channel per shard index, then the tree's, up and down per step slot.
int irChannelsPerChannel(int perNode) { return 2 * perNode + 2 * kStepsInFlight; }

struct TreeChannels {
  NvlsShardChannels shards;
  int slot;  // the step slot of the chunk at hand
  Channel up() const { return static_cast<Channel>(shards.base + 2 * shards.shards + slot); }
  Channel down() const { return static_cast<Channel>(shards.base + 2 * shards.shards + kStepsInFlight + slot); }
};

TreeChannels channelsOf(int perNode, int nvlsChannel, int chunk = 0) {
  return {{perNode, nvlsChannel * irChannelsPerChannel(perNode)}, chunk % kStepsInFlight};
}

// The options with NCCL's shard where none is given: 128 KiB, 64 KiB from 4 nodes.
AlgorithmOptions withNcclShard(int nodes, AlgorithmOptions options) {
  if (!options.chunkBytes) options.chunkBytes = nodes >= 4 ? kNcclNvlsTreeManyNodesShardBytes : kNcclNvlsDefaultShardBytes;
  return options;
}

void validate(int ranks, const AlgorithmOptions& options) {
  validateNcclChannels(ranks, options);
  if (nodesOf(ranks, options) < 2)
    throw InvalidArgument("ranks-per-node", std::to_string(ncclRanksPerNodeOf(options)) + " ranks per node make " + std::to_string(ranks) +
                                                " ranks one node, where NCCL runs NVLS (nccl-nvls), not NVLS-tree");
  validateNvlsShards(options, irChannelsPerChannel(ncclRanksPerNodeOf(options)));
}

// The head's part of one chunk's shard `mine` (it is member `local` of its node): reduce the children's
// nodes' sums into the node's, up the tree, and the total back down to the children.
void appendTreeHop(ProgramBuilder& builder, const Group& group, Range mine, int local, int perNode, const BinaryTreeNode& tree,
                   TreeChannels channels) {
  const auto headOf = [&](int n) { return group.rank(n * perNode + local); };
  for (int child : {tree.left, tree.right})
    if (child >= 0) builder.receiveReduce(headOf(child), mine, channels.up());
  if (tree.parent >= 0) {
    builder.send(headOf(tree.parent), mine, channels.up());
    builder.receiveCopy(headOf(tree.parent), mine, channels.down());
  }
  for (int child : {tree.left, tree.right})
    if (child >= 0) builder.send(headOf(child), mine, channels.down());
}

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& given, int elementBytes) {
  const int perNode = ncclRanksPerNodeOf(given);
  const int nodes = nodesOf(group.size, given);
  const AlgorithmOptions options = withNcclShard(nodes, given);
  const Rank self = builder.self();
  const bool isSwitch = self >= group.rank(group.size) && self < group.rank(group.size) + nodes;
  if (!isSwitch && !group.contains(self)) return;
  // Switch n follows the group's ranks (makeSchedule makes the switches participants ranks .. ranks + nodes - 1).
  const int node = isSwitch ? self - group.rank(group.size) : group.indexOf(self) / perNode;
  const Group nodeGroup{group.rank(node * perNode), group.stride, perNode};
  const Rank nvswitch = group.rank(group.size) + node;
  const int channels = ncclChannelsOf(options);
  for (int c = 0; c < channels; ++c) {
    const Range part = blockOf(range, channels, c);
    const int chunks = nvlsChunkCount(part.count, perNode, elementBytes, options);
    const TreeChannels irChannels = channelsOf(perNode, c);
    if (isSwitch) {
      appendNvlsSwitch(builder, nodeGroup, part, chunks, irChannels.shards);
      continue;
    }
    const int local = nodeGroup.indexOf(self);
    const BinaryTreeNode tree = ncclNodeTreeOf(nodes, node, c);
    for (int k = 0; k < chunks; ++k) {
      const Range chunk = blockOf(part, chunks, k);
      appendNvlsLoads(builder, nodeGroup, nvswitch, chunk, irChannels.shards);
      if (const Range mine = blockOf(chunk, perNode, local); mine.count > 0)
        appendTreeHop(builder, group, mine, local, perNode, tree, channelsOf(perNode, c, k));
      appendNvlsStores(builder, nodeGroup, nvswitch, chunk, irChannels.shards);
    }
  }
}

// No closed form yet: the loads, the tree and the stores pipeline into one another across nodes, which no
// recurrence here walks. The α-β-γ time is the walk of the schedule itself, exact by construction and as
// costly as building the schedule.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  if (spec.ranks < 2 || spec.elements == 0) return 0;
  return walkSeconds(makeSchedule(kNcclNvlsTreeAllreduce, spec, options), model);
}

std::string describe(const AlgorithmOptions& options) {
  return describeNcclChannels("nccl-nvls-tree", options) + ", " +
         (options.chunkBytes ? std::to_string(*options.chunkBytes) + " B shards" : "NCCL's shards (128 KiB, 64 KiB from 4 nodes)");
}

}  // namespace

const AlgorithmDefinition kNcclNvlsTreeAllreduce{
    .name = "nccl-nvls-tree",
    .collective = CollectiveKind::Allreduce,
    .summary = "NCCL's NVLS-tree across nodes: each node's NVSwitch sums every shard, the shard's head GPU reduces the "
               "nodes' sums up a double binary tree over the nodes and back, and stores the total through the switch",
    .options = kChannels | kRanksPerNode | kChunkBytes,
    .switches = [](int ranks, const AlgorithmOptions& options) { return nodesOf(ranks, options); },
    .validate = validate,
    .describe = describe,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
