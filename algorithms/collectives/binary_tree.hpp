#pragma once
// The balanced in-order binary tree over positions 0 .. size-1 that double-binary-tree pipelines through:
// the root is the middle position, and every subtree is a contiguous run of positions.

#include "algorithms/cost/cost_model.hpp"

namespace ddl {

struct BinaryTreeNode {
  int parent = -1;  // positions; -1 where there is none
  int left = -1;
  int right = -1;
};

BinaryTreeNode inOrderTreeNode(int size, int position);
// Hops from the root to the deepest position: floor(lg size).
int inOrderTreeDepth(int size);

// Time for a pipelined reduce-then-broadcast through the tree of `size` positions, in `chunks` chunks each
// costing `transfer` (t) per hop and `reduce` (r) per reduction, as double-binary-tree schedules it. An
// inner node other than the root receives a chunk from its children, reduces the left child's then the
// right child's, sends the sum up, and only then posts the receives of its next chunk: it repeats every
// w = t + 2r (t + r with one child). The root has no send to wait for, so each of its links takes a new
// chunk as soon as the last is reduced: it repeats every t + r. A chunk climbs from a left child in t + 2r
// (its right sibling's reduction waits for it), from a right or only child in t + r. In max-plus terms the
// root holds its last chunk after the longest path that starts at some node, climbs to the root, and
// spends the remaining chunks - 1 periods at the slowest node on the way; the chunk then reaches the
// deepest leaf depth·t later.
double pipelinedTreeSeconds(int size, int chunks, double transfer, double reduce);

}  // namespace ddl
