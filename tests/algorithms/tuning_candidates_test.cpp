// What `ddlsim tune` ranks: every configuration that fits, none twice, each one makeSchedule accepts.

#include <gtest/gtest.h>

#include <set>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/tuning/tuning_candidates.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

const ClusterShape kFourPerNode{"test", {4, 4}, 4};

std::set<std::string> labelsOf(const std::vector<AlgorithmChoice>& candidates) {
  std::set<std::string> labels;
  for (const AlgorithmChoice& candidate : candidates) labels.insert(candidate.label());
  return labels;
}

TEST(OrderedGrids, AreEveryFactorisationInEveryOrder) {
  EXPECT_EQ(orderedGrids(12, 2), (std::vector<std::vector<int>>{{2, 6}, {3, 4}, {4, 3}, {6, 2}}));
  EXPECT_EQ(orderedGrids(8, 3), (std::vector<std::vector<int>>{{2, 4}, {4, 2}, {2, 2, 2}}));
  // 2^8: compositions of 8 into 2 parts (7) and 3 parts (21).
  EXPECT_EQ(orderedGrids(256, 3).size(), 28u);
  EXPECT_TRUE(orderedGrids(7, 3).empty());  // a prime has no grid of two sizes of at least 2
}

TEST(TuningCandidates, CoverEveryAlgorithmAndItsOptionsEachOnce) {
  const std::vector<AlgorithmChoice> candidates = tuningCandidates(CollectiveKind::Allreduce, 16, kFourPerNode);
  const std::set<std::string> labels = labelsOf(candidates);
  EXPECT_EQ(labels.size(), candidates.size()) << "a configuration listed twice";
  for (const char* expected : {"ring", "halving-doubling", "recursive-doubling", "binomial-tree",
                               "double-binary-tree 131072 B chunks", "double-binary-tree 2097152 B chunks", "ddl 4x4",
                               "ddl 2x8", "ddl 8x2", "ddl 2x2x4", "ddl 4x2x2", "torus-2d 4x4, inner halving-doubling",
                               "torus-2d 2x8, inner ring", "hierarchical 4 per node, inner ring",
                               "hierarchical 8 per node, inner double-binary-tree", "nccl-ring 1 channel, 4 per node",
                               "nccl-ring 2 channels, 4 per node", "nccl-tree 1 channel, 4 per node, 524288 B chunks",
                               "nccl-tree 2 channels, 4 per node, 524288 B chunks"})
    EXPECT_TRUE(labels.count(expected)) << expected;
  // 4 without options, 3 chunk sizes, ddl: 3 grids of 2 and 3 of 3 sizes; torus-2d: 3 grids, hierarchical:
  // 3 node sizes (2, 4, 8), each with the 5 composable allreduces; nccl-ring and nccl-tree: one and two
  // channels per NIC.
  EXPECT_EQ(candidates.size(), 4u + 3u + 6u + 15u + 15u + 2u + 2u);
  for (const AlgorithmChoice& candidate : candidates)
    EXPECT_NO_THROW(makeSchedule(*candidate.algorithm, {CollectiveKind::Allreduce, 16, 1024, 4}, candidate.options))
        << candidate.label();
}

TEST(TuningCandidates, IncludeTheClustersOwnGridEvenWithFourSizes) {
  const ClusterShape fourLevels{"test", {2, 2, 2, 2}, 2};
  const std::set<std::string> labels = labelsOf(tuningCandidates(CollectiveKind::Allreduce, 16, fourLevels, {"ddl"}));
  EXPECT_TRUE(labels.count("ddl 2x2x2x2"));
  EXPECT_EQ(labels.size(), 7u);  // 6 grids of 2 or 3 sizes, and the cluster's four
}

TEST(TuningCandidates, KeepOnlyTheNamedAlgorithmsAndRefuseUnknownNames) {
  const std::set<std::string> labels = labelsOf(tuningCandidates(CollectiveKind::Allreduce, 6, kFourPerNode, {"ring", "ddl"}));
  EXPECT_EQ(labels, (std::set<std::string>{"ring", "ddl 2x3", "ddl 3x2"}));
  try {
    tuningCandidates(CollectiveKind::Allreduce, 6, kFourPerNode, {"rnig"});
    FAIL() << "an unknown name was accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "--algorithms");
    EXPECT_NE(error.message().find("ring"), std::string::npos) << error.message();
  }
}

TEST(TuningCandidates, OfAPrimeRankCountAreTheAlgorithmsThatTakeAnyCount) {
  const std::set<std::string> labels = labelsOf(tuningCandidates(CollectiveKind::Allreduce, 7, {"test", {}, 1}));
  EXPECT_TRUE(labels.count("ring"));
  for (const std::string& label : labels) {
    EXPECT_EQ(label.rfind("ddl", 0), std::string::npos) << label;
    EXPECT_EQ(label.rfind("hierarchical", 0), std::string::npos) << label;
  }
}

// The plain ring, and NCCL's over the node's ranks with one and two channels per NIC, as for an allreduce.
TEST(TuningCandidates, OfReduceScatterAndAllGatherAreTheRingAndNcclsRings) {
  for (CollectiveKind kind : {CollectiveKind::ReduceScatter, CollectiveKind::AllGather}) {
    const std::set<std::string> labels = labelsOf(tuningCandidates(kind, 8, kFourPerNode));
    EXPECT_EQ(labels, (std::set<std::string>{"ring", "nccl-ring 1 channel, 4 per node", "nccl-ring 2 channels, 4 per node"}))
        << toString(kind);
  }
}

}  // namespace
}  // namespace ddl
