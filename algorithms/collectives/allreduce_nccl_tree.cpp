// nccl-tree: NCCL's tree allreduce (src/graph/connect.cc, src/device/all_reduce.h, v2.23.4-1) over C channels.
// The buffer is cut into C parts, one per channel. On channel c every node's ranks form a chain that starts
// at local rank c (mod the ranks per node), its head, and the heads form a binary tree over the nodes: the
// in-order tree of double-binary-tree on even channels, the same shifted by one node on odd ones, so that a
// node that is inner in one tree is mostly a leaf in the other (NCCL's double binary tree). Each chunk of the
// part is reduced up the chain and the tree to the root, and broadcast back down, every level working on a
// different chunk at once; the reduction and the broadcast have channels of their own, as in NCCL. Heads
// spread over the node's ranks, so C channels use every NIC of a node whose GPUs have one each.

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/nccl_channels.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// NCCL's Simple protocol moves buffers in chunks of this order, as double-binary-tree's.
constexpr std::int64_t kDefaultChunkBytes = 512 * 1024;

std::int64_t chunkBytesOf(const AlgorithmOptions& options) { return options.chunkBytes.value_or(kDefaultChunkBytes); }

// Chunks of a part: enough that none exceeds the chunk size, at least one.
int chunkCount(Elements partElements, int elementBytes, const AlgorithmOptions& options) {
  const double bytes = static_cast<double>(partElements) * elementBytes;
  const auto chunk = static_cast<double>(chunkBytesOf(options));
  return std::max(1, static_cast<int>((bytes + chunk - 1) / chunk));
}

// Channel c's tree over the group's members: parent and children (chain child first, then the heads of the
// node's children in the inter-node tree), as member indices; -1 for none.
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};

TreeNode treeNodeOf(int member, int size, int perNode, int channel) {
  const int nodes = size / perNode;
  const int node = member / perNode;
  const int head = channel % perNode;
  const int link = (member % perNode - head + perNode) % perNode;  // position along the chain, 0 at the head
  const auto memberOf = [&](int n, int position) { return n * perNode + (head + position) % perNode; };
  TreeNode tree;
  if (link + 1 < perNode) tree.children.push_back(memberOf(node, link + 1));
  if (link > 0) {
    tree.parent = memberOf(node, link - 1);
    return tree;
  }
  const BinaryTreeNode across = ncclNodeTreeOf(nodes, node, channel);
  if (across.parent >= 0) tree.parent = memberOf(across.parent, 0);
  for (int child : {across.left, across.right})
    if (child >= 0) tree.children.push_back(memberOf(child, 0));
  return tree;
}

void validate(int ranks, const AlgorithmOptions& options) {
  validateNcclChannels(ranks, options);
  checkChunkBytes(options);
}

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options, int elementBytes) {
  if (!group.contains(builder.self()) || group.size < 2) return;
  const int channels = ncclChannelsOf(options);
  const int perNode = ncclRanksPerNodeOf(options);
  const int me = group.indexOf(builder.self());
  for (int c = 0; c < channels; ++c) {
    const Range part = blockOf(range, channels, c);
    const int chunks = chunkCount(part.count, elementBytes, options);
    const TreeNode tree = treeNodeOf(me, group.size, perNode, c);
    const auto up = static_cast<Channel>(2 * c);
    const auto down = static_cast<Channel>(2 * c + 1);
    for (int k = 0; k < chunks; ++k) {
      for (int child : tree.children) builder.receiveReduce(group.rank(child), blockOf(part, chunks, k), up);
      if (tree.parent >= 0) builder.send(group.rank(tree.parent), blockOf(part, chunks, k), up);
    }
    for (int k = 0; k < chunks; ++k) {
      if (tree.parent >= 0) builder.receiveCopy(group.rank(tree.parent), blockOf(part, chunks, k), down);
      for (int child : tree.children) builder.send(group.rank(child), blockOf(part, chunks, k), down);
    }
  }
}

// The walk of one channel's tree under ProgramExecution's rules (algorithms/execution/program_execution.hpp),
// with every chunk costing `transfer` per message and `reduce` per reduction. Up: a node posts its
// receive-reduces of a chunk in child order once the previous one from the same child is done, reduces them
// in that order as they arrive, then posts the sum's send once all are reduced and its previous send is done.
// Down: it posts the receive of a chunk once its own send of that chunk upwards is done (the receive
// overwrites it) and its previous receive is done, then each child's send once the chunk is there (at the root:
// reduced) and its previous send to that child is done. A transfer starts once both ends are posted.
double treeWalkSeconds(int size, int perNode, int channel, int chunks, double transfer, double reduce) {
  std::vector<TreeNode> tree;
  for (int member = 0; member < size; ++member) tree.push_back(treeNodeOf(member, size, perNode, channel));
  // Parents before children: breadth first from the root.
  std::vector<int> order;
  for (int member = 0; member < size; ++member)
    if (tree[member].parent < 0) order.push_back(member);
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int child : tree[order[i]].children) order.push_back(child);
  const auto slot = [&](int member) {  // a member's place among its parent's children
    const auto& siblings = tree[tree[member].parent].children;
    return static_cast<std::size_t>(std::find(siblings.begin(), siblings.end(), member) - siblings.begin());
  };

  // Per member, as of the chunk being walked; per child where a step is per child.
  struct State {
    double upPosted = 0, downPosted = 0;  // when the channel's latest step was posted
    std::vector<double> receivePosted, reduced;      // up: this chunk's receive-reduce from each child
    double allReduced = 0, sendPosted = 0, sendDone = 0;  // up: this chunk's sum, and its send to the parent
    double receiveDownPosted = 0, receivedDown = 0;     // down: this chunk's receive from the parent
    std::vector<double> sendDownPosted, sendDownDone;  // down: this chunk's send to each child
  };
  std::vector<State> state(static_cast<std::size_t>(size));
  for (int member = 0; member < size; ++member) {
    const std::size_t n = tree[member].children.size();
    state[member].receivePosted.assign(n, 0);
    state[member].reduced.assign(n, 0);
    state[member].sendDownPosted.assign(n, 0);
    state[member].sendDownDone.assign(n, 0);
  }
  double end = 0;
  for (int k = 0; k < chunks; ++k) {
    // Up. Receive-reduces are posted from the member's own past alone.
    for (State& s : state)
      for (std::size_t c = 0; c < s.reduced.size(); ++c) s.receivePosted[c] = s.upPosted = std::max(s.upPosted, s.reduced[c]);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // children before parents
      State& s = state[*it];
      double done = 0;
      for (std::size_t c = 0; c < s.reduced.size(); ++c) {
        const double arrived = std::max(s.receivePosted[c], state[tree[*it].children[c]].sendPosted) + transfer;
        s.reduced[c] = done = std::max(arrived, done) + reduce;
      }
      s.allReduced = done;
      if (tree[*it].parent >= 0) s.sendPosted = s.upPosted = std::max({s.upPosted, done, s.sendDone});
      end = std::max(end, done);
    }
    for (int member : order)
      if (tree[member].parent >= 0) {
        State& s = state[member];
        s.sendDone = std::max(s.sendPosted, state[tree[member].parent].receivePosted[slot(member)]) + transfer;
      }
    // Down, parents before children.
    for (int member : order) {
      State& s = state[member];
      double ready = s.allReduced;  // the root's sum
      if (tree[member].parent >= 0) {
        s.receiveDownPosted = s.downPosted = std::max({s.downPosted, s.sendDone, s.receivedDown});
        s.receivedDown = ready =
            std::max(s.receiveDownPosted, state[tree[member].parent].sendDownPosted[slot(member)]) + transfer;
        end = std::max(end, ready);
      }
      for (std::size_t c = 0; c < s.sendDownPosted.size(); ++c)
        s.sendDownPosted[c] = s.downPosted = std::max({s.downPosted, ready, s.sendDownDone[c]});
    }
    for (int member : order)
      for (std::size_t c = 0; c < tree[member].children.size(); ++c) {
        State& s = state[member];
        s.sendDownDone[c] = std::max(s.sendDownPosted[c], state[tree[member].children[c]].receiveDownPosted) + transfer;
        end = std::max(end, s.sendDownDone[c]);
      }
  }
  return end;
}

double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  if (spec.ranks < 2 || spec.elements == 0) return 0;
  const Elements part = largestBlock(spec.elements, ncclChannelsOf(options));
  const int chunks = chunkCount(part, spec.elementBytes, options);
  const double bytes = static_cast<double>(largestBlock(part, chunks)) * spec.elementBytes;
  return treeWalkSeconds(spec.ranks, ncclRanksPerNodeOf(options), 0, chunks, model.link(0).messageSeconds(bytes),
                         model.reduceSeconds(bytes));
}

std::string describe(const AlgorithmOptions& options) {
  return describeNcclChannels("nccl-tree", options) + ", " + std::to_string(chunkBytesOf(options)) + " B chunks";
}

}  // namespace

const AlgorithmDefinition kNcclTreeAllreduce{
    .name = "nccl-tree",
    .collective = CollectiveKind::Allreduce,
    .summary = "NCCL's tree: on each channel a chain through every node from its head, the heads in a binary tree "
               "over the nodes (shifted on odd channels), reduced up and broadcast down in chunks",
    .options = kChannels | kRanksPerNode | kChunkBytes,
    .costedAsNcclTree = true,
    .validate = validate,
    .describe = describe,
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
