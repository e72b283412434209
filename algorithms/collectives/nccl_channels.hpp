#pragma once
// The options NCCL's algorithms share (nccl-ring, nccl-tree): channels side by side, each on its part of the
// buffer, over nodes of consecutive ranks.

#include <string>
#include <string_view>

#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/collectives/binary_tree.hpp"
#include "algorithms/collectives/ring_phases.hpp"
#include "algorithms/schedule/collective.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

inline int ncclChannelsOf(const AlgorithmOptions& options) { return options.channels.value_or(1); }

inline int ncclRanksPerNodeOf(const AlgorithmOptions& options) { return static_cast<int>(options.ranksPerNode.value_or(1)); }

// InvalidArgument naming ranks-per-node unless it divides `ranks` into whole nodes, or channels unless it is
// 1 to NCCL's MAXCHANNELS.
inline void validateNcclChannels(int ranks, const AlgorithmOptions& options) {
  const int perNode = ncclRanksPerNodeOf(options);
  if (perNode < 1 || ranks % perNode != 0)
    throw InvalidArgument("ranks-per-node", std::to_string(perNode) + " does not divide " + std::to_string(ranks) +
                                                " ranks into whole nodes");
  const int channels = ncclChannelsOf(options);
  if (channels < 1 || channels > kMaxChannels)
    throw InvalidArgument("channels", "must be 1 to " + std::to_string(kMaxChannels) + ", got " + std::to_string(channels));
}

// "nccl-ring 2 channels, 4 per node"
inline std::string describeNcclChannels(std::string_view name, const AlgorithmOptions& options) {
  const int channels = ncclChannelsOf(options);
  return std::string(name) + " " + std::to_string(channels) + (channels == 1 ? " channel, " : " channels, ") +
         std::to_string(ncclRanksPerNodeOf(options)) + " per node";
}

// Channel `channel`'s ring among nccl-ring's: the nodes in order, each entered at its local rank channel mod
// the ranks per node (allreduce_nccl_ring.cpp says why).
inline RingOrder ncclChannelRing(const Group& group, const AlgorithmOptions& options, int channel) {
  const int perNode = ncclRanksPerNodeOf(options);
  return RingOrder{group, perNode, channel % perNode};
}

// Channel `channel`'s tree over `nodes` nodes, as node indices (-1 for none): the in-order tree of
// double-binary-tree on even channels, the same shifted by one node on odd ones, so that a node that is inner
// in one tree is mostly a leaf in the other (NCCL's double binary tree, as nccl-tree and nccl-nvls-tree use it).
inline BinaryTreeNode ncclNodeTreeOf(int nodes, int node, int channel) {
  const int shift = channel % 2;
  const BinaryTreeNode across = inOrderTreeNode(nodes, (node + shift) % nodes);
  const auto nodeAt = [&](int position) { return position < 0 ? -1 : (position - shift + nodes) % nodes; };
  return {nodeAt(across.parent), nodeAt(across.left), nodeAt(across.right)};
}

// nccl-ring's all-gather and reduce-scatter: moving every rank by a node moves it a node's ranks along every
// channel's ring, and its blocks to the moved rank's, of the same size where the ranks divide the elements
// (then every channel's part of every block is of one size too).
inline int ncclRingOfBlocksTranslationPeriod(const CollectiveSpec& spec, const AlgorithmOptions& options) {
  return spec.elements % spec.ranks == 0 ? ncclRanksPerNodeOf(options) : 0;
}

}  // namespace ddl
