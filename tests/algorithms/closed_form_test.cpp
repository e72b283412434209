// Each algorithm's closed-form α-β-γ time equals the walk of its own schedule: the formula in
// algorithms/README.md is the schedule's exact cost, not an approximation of it.

#include <cmath>

#include <gtest/gtest.h>

#include "algorithms/cost/schedule_walk.hpp"
#include "algorithms/collectives/definitions.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

// Deliberately unround, so that no two terms cancel by accident.
const LinkCost kFastLink{0.7e-6, 1 / 41.3e9};
const LinkCost kMiddleLink{1.9e-6, 1 / 23.1e9};
const LinkCost kSlowLink{5.3e-6, 1 / 9.7e9};
const double kGamma = 1 / 211.0e9;

// A model whose levels, innermost first, get ever slower links.
CostModel withLevels(const std::vector<int>& levels) {
  std::vector<LinkCost> links = {kFastLink, kMiddleLink, kSlowLink, kSlowLink};
  links.resize(levels.size());
  return CostModel(levels, links, kGamma);
}

bool hasEmptyStep(const Schedule& schedule) {
  for (Rank rank = 0; rank < schedule.ranks(); ++rank) {
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps())
      if (step.range.count == 0) return true;
  }
  return false;
}

// Equal when every step moves data. Steps of no elements cost nothing and order nothing, so they can let
// work overlap that the formula puts in sequence: then the formula is an upper bound.
void expectClosedFormEqualsWalk(const AlgorithmDefinition& algorithm, int ranks, Elements elements,
                                const AlgorithmOptions& options) {
  const CollectiveSpec spec{algorithm.collective, ranks, elements, 4};
  const Schedule schedule = makeSchedule(algorithm, spec, options);
  const CostModel model = withLevels(algorithm.costLevels(ranks, options));
  const double walk = walkSeconds(schedule, model);
  const double closed = algorithm.closedFormSeconds(spec, options, model);
  if (hasEmptyStep(schedule)) {
    EXPECT_GE(closed, walk * (1 - 1e-12)) << schedule.description() << ", " << ranks << " ranks, " << elements
                                          << " elements (some steps empty)";
  } else {
    EXPECT_NEAR(closed, walk, 1e-12 * walk) << schedule.description() << ", " << ranks << " ranks, " << elements
                                            << " elements";
  }
}

const std::vector<int> kRankCounts = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 31, 33, 64, 100, 128, 256};

std::vector<Elements> elementGrid(int ranks) {
  std::vector<Elements> grid = elementCountsFor(ranks);
  grid.push_back(65536);
  grid.push_back(ranks * 1000 + 7);
  return grid;
}

TEST(ClosedForm, IsZeroForAnEmptyBuffer) {
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    if (algorithm->options != kNoOptions) continue;
    const CollectiveSpec spec{algorithm->collective, 16, 0, 4};
    EXPECT_EQ(algorithm->closedFormSeconds(spec, {}, withLevels({16})), 0) << algorithm->name;
    EXPECT_EQ(walkSeconds(ddl::makeSchedule(*algorithm, spec, {}), withLevels({16})), 0) << algorithm->name;
  }
}

TEST(ClosedForm, EqualsTheScheduleWalkForEveryFlatAlgorithm) {
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    if (algorithm->options != kNoOptions) continue;
    for (int ranks : kRankCounts)
      for (Elements elements : elementGrid(ranks)) expectClosedFormEqualsWalk(*algorithm, ranks, elements, {});
  }
}

TEST(ClosedForm, EqualsTheScheduleWalkForDdlWithItsOwnCostPerDimension) {
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{
           {4}, {4, 2}, {2, 4}, {3, 5}, {4, 16, 4}, {4, 8, 8}, {2, 3, 5}, {3, 1, 4}, {1, 7}, {2, 2, 2, 2}}) {
    int ranks = 1;
    for (int d : dims) ranks *= d;
    for (Elements elements : elementGrid(ranks)) expectClosedFormEqualsWalk(kDdlAllreduce, ranks, elements, {.dims = dims});
  }
}

TEST(ClosedForm, EqualsTheScheduleWalkForHierarchicalWithEveryInnerAlgorithm) {
  for (const char* inner : {"ring", "halving-doubling", "recursive-doubling", "binomial-tree"})
    for (int ranks : {6, 8, 24, 64})
      for (int perNode : divisorsOf(ranks))
        for (Elements elements : elementGrid(ranks))
          expectClosedFormEqualsWalk(kHierarchicalAllreduce, ranks, elements, {.ranksPerNode = perNode, .inner = inner});
}

TEST(ClosedForm, EqualsTheScheduleWalkForTorusWithEveryInnerAlgorithm) {
  for (const char* inner : {"ring", "halving-doubling", "recursive-doubling", "binomial-tree"})
    for (int ranks : {6, 8, 24, 64})
      for (int width : divisorsOf(ranks))
        for (Elements elements : elementGrid(ranks))
          expectClosedFormEqualsWalk(kTorus2dAllreduce, ranks, elements,
                                     {.dims = std::vector<int>{width, ranks / width}, .inner = inner});
}

// Its channels share no link in the walk, so the one with the largest part ends last.
TEST(ClosedForm, EqualsTheScheduleWalkForNcclRingOnEveryNodeSizeAndChannelCount) {
  for (int ranks : {2, 6, 8, 24, 64})
    for (int perNode : divisorsOf(ranks))
      for (int channels : {1, 2, 3, 8})
        for (Elements elements : elementGrid(ranks))
          expectClosedFormEqualsWalk(kNcclRingAllreduce, ranks, elements, {.ranksPerNode = perNode, .channels = channels});
}

// The same for its reduce-scatter and all-gather, whose channel 0 carries the first part of every rank's block.
TEST(ClosedForm, EqualsTheScheduleWalkForNcclRingReduceScatterAndAllGather) {
  for (const AlgorithmDefinition* algorithm : {&kNcclRingReduceScatter, &kNcclRingAllGather})
    for (int ranks : {2, 6, 8, 24})
      for (int perNode : divisorsOf(ranks))
        for (int channels : {1, 2, 3, 8})
          for (Elements elements : elementGrid(ranks))
            expectClosedFormEqualsWalk(*algorithm, ranks, elements, {.ranksPerNode = perNode, .channels = channels});
}

// Pipelined trees: exact when every chunk has one size, which these element counts give with 4 KiB chunks
// (2 trees x chunks x 1024 four-byte elements).
TEST(ClosedForm, EqualsTheScheduleWalkForDoubleBinaryTreeWithEqualChunks) {
  for (int ranks : kRankCounts)
    for (Elements elements : {0, 2 * 1024, 2 * 1024 * 3, 2 * 1024 * 16})
      expectClosedFormEqualsWalk(kDoubleBinaryTreeAllreduce, ranks, elements, {.chunkBytes = 4096});
  // As the inner allreduce: 5 equal chunks per tree on the leaders' whole buffer, and on a torus column's
  // block of half the buffer.
  for (int leaders : {2, 5, 16}) {
    expectClosedFormEqualsWalk(kHierarchicalAllreduce, 2 * leaders, 2 * 1024 * 5,
                               {.ranksPerNode = 2, .inner = "double-binary-tree", .chunkBytes = 4096});
    expectClosedFormEqualsWalk(kTorus2dAllreduce, 2 * leaders, 2 * 2 * 1024 * 5,
                               {.dims = std::vector<int>{2, leaders}, .inner = "double-binary-tree", .chunkBytes = 4096});
  }
}

// NCCL's tree: the walk of channel 0's tree, with its largest part, in chunks that all have one size (C
// channels x chunks x 1024 four-byte elements with 4 KiB chunks). Odd channels' trees are the same shape.
TEST(ClosedForm, EqualsTheScheduleWalkForNcclTreeOnEveryNodeSizeAndChannelCount) {
  for (int ranks : {2, 3, 6, 8, 16, 24, 40})
    for (int perNode : divisorsOf(ranks))
      for (int channels : {1, 2, 3})
        for (int chunks : {1, 2, 5})
          expectClosedFormEqualsWalk(kNcclTreeAllreduce, ranks, static_cast<Elements>(channels) * chunks * 1024,
                                     {.ranksPerNode = perNode, .chunkBytes = 4096, .channels = channels});
}

TEST(ClosedForm, BoundsTheDoubleBinaryTreeWalkFromAboveWithUnequalChunks) {
  const AlgorithmOptions options{.chunkBytes = 4096};
  for (int ranks : kRankCounts)
    for (Elements elements : {1, 7, 2 * 1024 + 1, 1'000'003}) {
      const CollectiveSpec spec{CollectiveKind::Allreduce, ranks, elements, 4};
      const CostModel model = CostModel::uniform(ranks, kSlowLink, kGamma);
      const double walk = walkSeconds(ddl::makeSchedule(kDoubleBinaryTreeAllreduce, spec, options), model);
      const double closed = kDoubleBinaryTreeAllreduce.closedFormSeconds(spec, options, model);
      EXPECT_GE(closed, walk * (1 - 1e-12)) << ranks << " ranks, " << elements << " elements";
      EXPECT_LE(closed, walk * 1.01) << ranks << " ranks, " << elements << " elements";
    }
}

TEST(ClosedForm, ReducesToTheTextbookFormulasWhenBlocksDivideEvenly) {
  // docs/reference/README.md: ring 2(p-1)α + 2(p-1)/p nβ + (p-1)/p nγ; Rabenseifner for a power of
  // two 2 lg p α + 2(p-1)/p nβ + (p-1)/p nγ; recursive doubling lg p (α + nβ + nγ); binomial reduce +
  // broadcast 2 lg p α + 2n lg p β + n lg p γ.
  const int p = 64;
  const double n = 64.0 * 4096 * 4;  // bytes, divisible by every block count
  const CollectiveSpec spec{CollectiveKind::Allreduce, p, 64 * 4096, 4};
  const CostModel model = CostModel::uniform(p, kSlowLink, kGamma);
  const double a = kSlowLink.latency_s, b = kSlowLink.seconds_per_byte, g = kGamma, lg = 6;
  auto closed = [&](const AlgorithmDefinition& algorithm) { return algorithm.closedFormSeconds(spec, {}, model); };
  EXPECT_NEAR(closed(kRingAllreduce), 2 * (p - 1) * a + 2.0 * (p - 1) / p * n * b + (p - 1.0) / p * n * g, 1e-15);
  EXPECT_NEAR(closed(kHalvingDoublingAllreduce), 2 * lg * a + 2.0 * (p - 1) / p * n * b + (p - 1.0) / p * n * g, 1e-15);
  EXPECT_NEAR(closed(kRecursiveDoublingAllreduce), lg * (a + n * b + n * g), 1e-15);
  EXPECT_NEAR(closed(kBinomialTreeAllreduce), 2 * lg * a + 2 * n * lg * b + n * lg * g, 1e-15);
}

TEST(ClosedForm, HalvingDoublingWithTheFoldNeverExceedsMpichsFormula) {
  // (2 floor(lg p) + 2)α + (2(p'-1)/p' + 2)nβ + (1 + (p'-1)/p')nγ, p' = 2^floor(lg p): the fold and the
  // halving-doubling as if they ran one after the other on every rank.
  for (int p : {3, 5, 6, 7, 12, 24, 100, 255}) {
    int active = 1;
    while (active * 2 <= p) active *= 2;
    const double lg = std::log2(active);
    const Elements elements = active * 1000;
    const double n = elements * 4.0;
    const CollectiveSpec spec{CollectiveKind::Allreduce, p, elements, 4};
    const CostModel model = CostModel::uniform(p, kSlowLink, kGamma);
    const double a = kSlowLink.latency_s, b = kSlowLink.seconds_per_byte, g = kGamma;
    const double mpich = (2 * lg + 2) * a + (2.0 * (active - 1) / active + 2) * n * b + (1 + (active - 1.0) / active) * n * g;
    EXPECT_LE(kHalvingDoublingAllreduce.closedFormSeconds(spec, {}, model), mpich * (1 + 1e-12)) << p;
  }
}

}  // namespace
}  // namespace ddl::testing
