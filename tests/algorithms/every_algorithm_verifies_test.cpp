// The verifier proves every algorithm correct for every rank count 1..64 and 96, 128, 255, 256, 1000, 1024
// (fewer under the sanitizers: rankCounts),
// for every shape it accepts, on element counts that exercise empty, uneven and realistic blocks.

#include <cctype>
#include <ostream>

#include <gtest/gtest.h>

#include "algorithms/verify/verifier.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

// One algorithm at one rank count, in every shape it accepts there.
struct Case {
  CollectiveKind kind;
  std::string algorithm;
  int ranks;
  std::vector<AlgorithmOptions> shapes;
  std::string name;
};

// What a failing case's line names: its algorithm, rank count and how many shapes (not 104 bytes of hex).
void PrintTo(const Case& c, std::ostream* out) {
  *out << toString(c.kind) << " " << c.algorithm << " on " << c.ranks << (c.ranks == 1 ? " rank, " : " ranks, ")
       << c.shapes.size() << (c.shapes.size() == 1 ? " shape" : " shapes");
}

// Built twice: the large rank counts alone (DDLSCALE_LARGE_RANK_COUNTS=1) and all the others. The
// sanitizers look for memory faults, not wrong sums, and a rank count's paths repeat with its parity,
// primality, power of two and grids, all of which every count up to 32 already takes: under them, every
// count to 32, then 48 (three-dim grids of 2, 3 and 8), 61 (prime), 63, 64, 96 and 128. 255 and 256 take the
// paths of 127 and 128 at twice the time, and 33 to 64 in full took 60% of the sanitized sweep (about 3 min
// of the CI run); the optimised build proves every count.
std::vector<int> rankCounts() {
  if (DDLSCALE_LARGE_RANK_COUNTS) return {1000, 1024};
  std::vector<int> counts;
#if defined(__SANITIZE_ADDRESS__)
  for (int p = 1; p <= 32; ++p) counts.push_back(p);
  for (int p : {48, 61, 63, 64, 96, 128}) counts.push_back(p);
#else
  for (int p = 1; p <= 64; ++p) counts.push_back(p);
  for (int p : {96, 128, 255, 256}) counts.push_back(p);
#endif
  return counts;
}

std::string identifier(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
}

const std::vector<std::string> kComposable = {"ring", "halving-doubling", "recursive-doubling", "binomial-tree",
                                              "double-binary-tree"};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (int p : rankCounts()) {
    const std::string suffix = "_P" + std::to_string(p);
    for (const std::string& name : kComposable)
      all.push_back({CollectiveKind::Allreduce, name, p, {{}}, identifier(name) + suffix});
    all.push_back({CollectiveKind::ReduceScatter, "ring", p, {{}}, "reduce_scatter_ring" + suffix});
    all.push_back({CollectiveKind::AllGather, "ring", p, {{}}, "all_gather_ring" + suffix});

    Case ddl{CollectiveKind::Allreduce, "ddl", p, {}, "ddl_every_grid_of_up_to_3_dims" + suffix};
    for (const auto& dims : orderedFactorizations(p, 3)) ddl.shapes.push_back({.dims = dims});
    all.push_back(ddl);

    // Every node size and grid, each with one inner algorithm, taking the inner algorithms in turn so that
    // each appears at every rank count with enough shapes. (All inner algorithms on every shape would
    // repeat, at five times the cost, what the flat cases above already prove of each inner algorithm.)
    Case hierarchical{CollectiveKind::Allreduce, "hierarchical", p, {}, "hierarchical_every_node_size" + suffix};
    Case torus{CollectiveKind::Allreduce, "torus-2d", p, {}, "torus_2d_every_grid" + suffix};
    // Up to 32 ranks every node size, with one channel per rank of a node (every rank a ring's first), twice
    // that, or 3 (channels that divide neither the node's ranks nor, often, the elements), in turn. Beyond,
    // where each shape takes seconds, two: nodes of up to 8 ranks with a channel per rank, and 3 channels
    // of plain rings. Under the sanitizers every node size up to 16 ranks: the larger take the same paths,
    // 45 s of the sanitized run at 32.
#if defined(__SANITIZE_ADDRESS__)
    constexpr int kEveryNodeSizeUpTo = 16;
#else
    constexpr int kEveryNodeSizeUpTo = 32;
#endif
    Case ncclRing{CollectiveKind::Allreduce, "nccl-ring", p, {}, "nccl_ring_node_sizes" + suffix};
    // nccl-tree on the same nodes and channels, in chunks of 1 MiB: the largest count (4 MB) pipelines in
    // up to 4 chunks a channel, the rest in one (smaller chunks at that count would take minutes).
    Case ncclTree{CollectiveKind::Allreduce, "nccl-tree", p, {}, "nccl_tree_node_sizes" + suffix};
    // NCCL's reduce-scatter and all-gather rings on the same nodes and channels: every rank's own block,
    // wherever its channel's ring enters the node.
    Case ncclReduceScatter{CollectiveKind::ReduceScatter, "nccl-ring", p, {}, "reduce_scatter_nccl_ring_node_sizes" + suffix};
    Case ncclAllGather{CollectiveKind::AllGather, "nccl-ring", p, {}, "all_gather_nccl_ring_node_sizes" + suffix};
    const std::vector<int> divisors = divisorsOf(p);
    std::vector<std::pair<int, int>> ncclShapes;  // (ranks per node, channels)
    if (p > kEveryNodeSizeUpTo) {
      int node = 1;
      for (int d : divisors) node = d <= 8 ? d : node;
      ncclShapes = {{node, node}, {1, 3}};
    }
    for (std::size_t i = 0; i < divisors.size() && p <= kEveryNodeSizeUpTo; ++i) {
      const int channels[] = {divisors[i], 2 * divisors[i], 3};
      ncclShapes.push_back({divisors[i], channels[i % 3]});
    }
    for (const auto& [perNode, channels] : ncclShapes) {
      // Field by field: GCC 12 takes designated initialisers of AlgorithmOptions here for uninitialised.
      AlgorithmOptions shape;
      shape.ranksPerNode = perNode;
      shape.channels = std::min(channels, kMaxChannels);
      ncclRing.shapes.push_back(shape);
      ncclReduceScatter.shapes.push_back(shape);
      ncclAllGather.shapes.push_back(shape);
      shape.chunkBytes = 1 << 20;
      ncclTree.shapes.push_back(shape);
    }
    for (std::size_t i = 0; i < divisors.size(); ++i) {
      const std::string& inner = kComposable[i % kComposable.size()];
      hierarchical.shapes.push_back({.ranksPerNode = divisors[i], .inner = inner});
      torus.shapes.push_back({.dims = std::vector<int>{divisors[i], p / divisors[i]},
                              .inner = kComposable[(i + 1) % kComposable.size()]});
    }
    all.push_back(hierarchical);
    all.push_back(torus);
    all.push_back(ncclRing);
    all.push_back(ncclTree);
    all.push_back(ncclReduceScatter);
    all.push_back(ncclAllGather);
  }
  return all;
}

class EveryAlgorithm : public ::testing::TestWithParam<Case> {};

TEST_P(EveryAlgorithm, ComputesItsCollectiveForEveryElementCount) {
  const Case& c = GetParam();
  for (const AlgorithmOptions& shape : c.shapes) {
    for (Elements elements : elementCountsFor(c.ranks)) {
      const Schedule schedule = makeSchedule(c.kind, c.algorithm, c.ranks, elements, shape);
      const VerificationReport report = verify(schedule);
      EXPECT_TRUE(report.ok()) << schedule.description() << ", " << c.ranks << " ranks, " << elements
                               << " elements: " << toString(report.problem) << ": " << report.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Verify, EveryAlgorithm, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace ddl::testing
