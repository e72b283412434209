// double-binary-tree (NCCL 2.4, Sanders, Speck & Träff 2009): two binary trees over the same ranks, the
// second the first shifted by one rank, so most ranks that are inner nodes in one are leaves in the other.
// Each tree reduces half of the buffer up to its root and broadcasts it back down, in chunks, so that every
// level works on a different chunk at once. Each tree's reduction and broadcast run on channels of their
// own (NCCL gives each tree its own channels), so neither waits in line behind the other.

#include <algorithm>

#include "algorithms/collectives/binary_tree.hpp"
#include "algorithms/collectives/definitions.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// NCCL's Simple protocol moves buffers in chunks of this order; see algorithms/README.md.
constexpr std::int64_t kDefaultChunkBytes = 512 * 1024;
constexpr int kTrees = 2;

std::int64_t chunkBytesOf(const AlgorithmOptions& options) { return options.chunkBytes.value_or(kDefaultChunkBytes); }

// Chunks per tree: enough that none exceeds the chunk size, at least one.
int chunkCount(Elements elements, int elementBytes, const AlgorithmOptions& options) {
  const auto halfBytes = static_cast<double>(largestBlock(elements, kTrees)) * elementBytes;
  return std::max(1, static_cast<int>((halfBytes + static_cast<double>(chunkBytesOf(options)) - 1) /
                                      static_cast<double>(chunkBytesOf(options))));
}

int positionIn(int tree, int member, int size) { return (member + tree) % size; }
int memberAt(int tree, int position, int size) { return (position - tree + size) % size; }

void append(ProgramBuilder& builder, const Group& group, Range range, const AlgorithmOptions& options,
            int elementBytes) {
  if (!group.contains(builder.self()) || group.size < 2) return;
  const int g = group.size;
  const int me = group.indexOf(builder.self());
  const int chunks = chunkCount(range.count, elementBytes, options);
  auto rankAt = [&](int tree, int position) { return group.rank(memberAt(tree, position, g)); };
  auto chunk = [&](int tree, int c) { return blockOf(blockOf(range, kTrees, tree), chunks, c); };

  BinaryTreeNode node[kTrees];
  for (int tree = 0; tree < kTrees; ++tree) node[tree] = inOrderTreeNode(g, positionIn(tree, me, g));

  auto up = [](int tree) { return static_cast<Channel>(2 * tree); };
  auto down = [](int tree) { return static_cast<Channel>(2 * tree + 1); };
  // Reduction: a chunk from each child, then the sum to the parent.
  for (int c = 0; c < chunks; ++c) {
    for (int tree = 0; tree < kTrees; ++tree) {
      for (int child : {node[tree].left, node[tree].right})
        if (child >= 0) builder.receiveReduce(rankAt(tree, child), chunk(tree, c), up(tree));
      if (node[tree].parent >= 0) builder.send(rankAt(tree, node[tree].parent), chunk(tree, c), up(tree));
    }
  }
  // Broadcast, on a channel of its own so that it runs alongside the reduction of later chunks: the root
  // sends each chunk down as soon as it has reduced it.
  for (int c = 0; c < chunks; ++c) {
    for (int tree = 0; tree < kTrees; ++tree) {
      if (node[tree].parent >= 0) builder.receiveCopy(rankAt(tree, node[tree].parent), chunk(tree, c), down(tree));
      for (int child : {node[tree].left, node[tree].right})
        if (child >= 0) builder.send(rankAt(tree, child), chunk(tree, c), down(tree));
    }
  }
}

// Both trees have the same shape and run side by side; see pipelinedTreeSeconds. Exact when every chunk
// has one size; with uneven chunks, charging each the largest gives an upper bound.
double closedFormSeconds(const CollectiveSpec& spec, const AlgorithmOptions& options, const CostModel& model) {
  const int chunks = chunkCount(spec.elements, spec.elementBytes, options);
  const double bytes =
      static_cast<double>(largestBlock(largestBlock(spec.elements, kTrees), chunks)) * spec.elementBytes;
  return pipelinedTreeSeconds(spec.ranks, chunks, model.link(0).messageSeconds(bytes), model.reduceSeconds(bytes));
}

void validate(int, const AlgorithmOptions& options) {
  checkChunkBytes(options);
}

}  // namespace

const AlgorithmDefinition kDoubleBinaryTreeAllreduce{
    .name = "double-binary-tree",
    .collective = CollectiveKind::Allreduce,
    .summary = "NCCL-style two complementary binary trees, each reducing and broadcasting half, pipelined in chunks",
    .options = kChunkBytes,
    .composable = true,
    .validate = validate,
    .describe =
        [](const AlgorithmOptions& options) {
          return "double-binary-tree " + std::to_string(chunkBytesOf(options)) + " B chunks";
        },
    .append = append,
    .closedFormSeconds = closedFormSeconds,
};

}  // namespace ddl
