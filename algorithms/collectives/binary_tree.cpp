#include "algorithms/collectives/binary_tree.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace ddl {
namespace {

int middle(int lo, int hi) { return lo + (hi - lo) / 2; }

// For a subtree of `size` positions whose root is an inner node but not the tree's root: the longest
// climb (w_u + climb from u to the subtree's root) over inner nodes u, separately for paths whose slowest
// node repeats every t + r (slowest[0]) and every t + 2r (slowest[1]); negative where there is none.
struct Climbs {
  double slowest[2] = {-1, -1};
};

Climbs climbs(int size, double transfer, double reduce, std::map<int, Climbs>& memo) {
  if (size <= 1) return {};
  if (auto it = memo.find(size); it != memo.end()) return it->second;
  const int leftSize = size / 2;  // positions [lo, middle)
  const int rightSize = size - leftSize - 1;
  const int ownSlowness = rightSize > 0 ? 1 : 0;  // two children: the period is t + 2r
  const double period = transfer + (1 + ownSlowness) * reduce;
  Climbs here;
  here.slowest[ownSlowness] = period;
  auto extend = [&](const Climbs& child, double climb) {
    for (int slowness = 0; slowness < 2; ++slowness) {
      if (child.slowest[slowness] < 0) continue;
      double& best = here.slowest[std::max(slowness, ownSlowness)];
      best = std::max(best, child.slowest[slowness] + climb);
    }
  };
  extend(climbs(leftSize, transfer, reduce, memo), period);  // the left child's climb costs one period
  extend(climbs(rightSize, transfer, reduce, memo), transfer + reduce);
  memo[size] = here;
  return here;
}

}  // namespace

BinaryTreeNode inOrderTreeNode(int size, int position) {
  BinaryTreeNode node;
  int lo = 0;
  int hi = size;
  while (true) {
    const int mid = middle(lo, hi);
    if (mid == position) {
      if (lo < mid) node.left = middle(lo, mid);
      if (mid + 1 < hi) node.right = middle(mid + 1, hi);
      return node;
    }
    node.parent = mid;
    if (position < mid) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
}

int inOrderTreeDepth(int size) { return size < 1 ? 0 : std::bit_width(static_cast<unsigned>(size)) - 1; }

double pipelinedTreeSeconds(int size, int chunks, double transfer, double reduce) {
  if (size < 2) return 0;
  std::map<int, Climbs> memo;
  const int leftSize = size / 2;
  const int rightSize = size - leftSize - 1;
  const double periods[2] = {transfer + reduce, transfer + 2 * reduce};
  const double rootPeriod = periods[0];
  // Starting at the root itself, or at a leaf that is the root's left child next to a right sibling.
  double last = chunks * rootPeriod;
  if (leftSize == 1 && rightSize > 0) last = std::max(last, periods[1] + (chunks - 1) * rootPeriod);
  auto fromChild = [&](int childSize, double climb) {
    const Climbs child = climbs(childSize, transfer, reduce, memo);
    for (int slowness = 0; slowness < 2; ++slowness)
      if (child.slowest[slowness] >= 0)
        last = std::max(last, child.slowest[slowness] + climb + (chunks - 1) * periods[slowness]);
  };
  fromChild(leftSize, rightSize > 0 ? periods[1] : periods[0]);
  fromChild(rightSize, periods[0]);
  return last + inOrderTreeDepth(size) * transfer;
}

}  // namespace ddl
