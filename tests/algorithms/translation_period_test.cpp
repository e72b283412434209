// A schedule's claimed translation period (Schedule::translationPeriod) is a promise the step engine builds
// on: it simulates rank r once for all of r, r + T, r + 2T, ... (sim/step/step_symmetry.hpp). Checked here on
// every rank of every algorithm that makes one, at sizes where it is made and where it must not be.

#include <algorithm>

#include <gtest/gtest.h>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"

namespace ddl::testing {
namespace {

// Whether `moved` is `program` moved by `shift` of `ranks` ranks: the same steps but for their offsets, each
// peer moved by `shift`. The first difference, or empty.
std::string differenceFromMoved(const Program& program, const Program& moved, int shift, int ranks) {
  if (program.size() != moved.size()) return "a program of " + std::to_string(moved.size()) + " steps, not " + std::to_string(program.size());
  for (StepIndex i = 0; i < program.size(); ++i) {
    const Step& a = program.step(i);
    const Step& b = moved.step(i);
    const bool same = a.kind == b.kind && a.range.count == b.range.count && a.channel == b.channel &&
                      (a.peer + shift) % ranks == b.peer &&
                      std::ranges::equal(program.dependenciesOf(i), moved.dependenciesOf(i));
    if (!same) return moved.describe(i) + " where the moved program has " + program.describe(i);
  }
  return "";
}

std::vector<const AlgorithmDefinition*> claimingAlgorithms() {
  std::vector<const AlgorithmDefinition*> claiming;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    if (algorithm->translationPeriod) claiming.push_back(algorithm);
  return claiming;
}

TEST(TranslationPeriod, TheRingClaimsOneRankExactlyWhenEveryChunkIsOfOneSize) {
  EXPECT_EQ(makeSchedule(kRingAllreduce, {CollectiveKind::Allreduce, 8, 64, 4}, {}).translationPeriod(), 1);
  EXPECT_EQ(makeSchedule(kRingAllreduce, {CollectiveKind::Allreduce, 8, 65, 4}, {}).translationPeriod(), 0);
  // The claim's condition is needed: with chunks of two sizes, rank 1 is not rank 0 moved.
  const Schedule uneven = makeSchedule(kRingAllreduce, {CollectiveKind::Allreduce, 8, 65, 4}, {});
  EXPECT_NE(differenceFromMoved(uneven.program(0), uneven.program(1), 1, 8), "");
}

// Every grid of up to three sizes that multiply to `ranks`, fastest-varying first.
std::vector<std::vector<int>> gridsOf(int ranks) {
  std::vector<std::vector<int>> grids;
  for (int a = 1; a <= ranks; ++a) {
    if (ranks % a != 0) continue;
    grids.push_back({a, ranks / a});
    for (int b = 1; b <= ranks / a; ++b)
      if ((ranks / a) % b == 0) grids.push_back({a, b, ranks / a / b});
  }
  grids.push_back({ranks});
  return grids;
}

// The options under which `algorithm` is checked at `ranks` ranks: every combination of the options it
// takes, over every grid (ddl, torus-2d), node size (hierarchical, nccl-ring), 1 to 3 channels (nccl-ring),
// and the inner ring or an inner allreduce that claims nothing. Combinations it refuses are left out.
std::vector<AlgorithmOptions> optionsToCheck(const AlgorithmDefinition& algorithm, int ranks) {
  std::vector<AlgorithmOptions> checked{AlgorithmOptions{}};
  const auto combine = [&checked](bool takes, const auto& set, const auto& values) {
    if (!takes) return;
    std::vector<AlgorithmOptions> combined;
    for (const AlgorithmOptions& options : checked)
      for (const auto& value : values) {
        AlgorithmOptions with = options;
        set(with, value);
        combined.push_back(with);
      }
    checked = std::move(combined);
  };
  std::vector<int> nodeSizes;
  for (int perNode = 1; perNode <= ranks; ++perNode)
    if (ranks % perNode == 0) nodeSizes.push_back(perNode);
  combine(algorithm.options & kRanksPerNode, [](AlgorithmOptions& o, int v) { o.ranksPerNode = v; }, nodeSizes);
  combine(algorithm.options & kDims, [](AlgorithmOptions& o, const std::vector<int>& v) { o.dims = v; }, gridsOf(ranks));
  combine(algorithm.options & kInner, [](AlgorithmOptions& o, const std::string& v) { o.inner = v; },
          std::vector<std::string>{"ring", "halving-doubling"});
  combine(algorithm.options & kChannels, [](AlgorithmOptions& o, int v) { o.channels = v; }, std::vector<int>{1, 2, 3});
  std::vector<AlgorithmOptions> accepted;
  for (const AlgorithmOptions& options : checked) {
    try {
      algorithm.validate(ranks, options);
      accepted.push_back(options);
    } catch (const InvalidArgument&) {
    }
  }
  return accepted;
}

TEST(TranslationPeriod, EveryClaimHoldsOnEveryRank) {
  ASSERT_FALSE(claimingAlgorithms().empty());
  int claims = 0;
  for (const AlgorithmDefinition* algorithm : claimingAlgorithms()) {
    for (int ranks : {1, 2, 3, 4, 6, 8, 12, 16}) {
      for (const AlgorithmOptions& options : optionsToCheck(*algorithm, ranks)) {
        for (Elements elements : {Elements{0}, Elements{ranks * 5}, Elements{ranks * 5 + 3}, Elements{ranks * 60}, Elements{ranks * 64}}) {
          const Schedule schedule = makeSchedule(*algorithm, {algorithm->collective, ranks, elements, 4}, options);
          const int period = schedule.translationPeriod();
          if (period == 0) continue;
          ++claims;
          ASSERT_EQ(ranks % period, 0) << schedule.description() << " at " << ranks << " ranks claims " << period;
          for (Rank r = 0; r < ranks; ++r) {
            const Rank moved = (r + period) % ranks;
            EXPECT_EQ(differenceFromMoved(schedule.program(r), schedule.program(moved), period, ranks), "")
                << schedule.description() << ", " << ranks << " ranks, " << elements << " elements: rank " << moved
                << " against rank " << r << " moved by " << period;
          }
        }
      }
    }
  }
  EXPECT_GT(claims, 100);
}

TEST(TranslationPeriod, DdlRepeatsEveryStepOfItsLastDimensionAndCompositesEveryStepOfTheirInnerClaim) {
  const auto periodOf = [](const AlgorithmDefinition& algorithm, Elements elements, const AlgorithmOptions& options) {
    return makeSchedule(algorithm, {CollectiveKind::Allreduce, 64, elements, 4}, options).translationPeriod();
  };
  // ddl 4x4x4: one step of the last dimension is 16 ranks; with blocks of two sizes, nothing.
  EXPECT_EQ(periodOf(kDdlAllreduce, 64 * 10, {.dims = std::vector<int>{4, 4, 4}}), 16);
  EXPECT_EQ(periodOf(kDdlAllreduce, 64 * 10 + 1, {.dims = std::vector<int>{4, 4, 4}}), 0);
  EXPECT_EQ(periodOf(kDdlAllreduce, 64 * 10, {.dims = std::vector<int>{64}}), 1);
  // hierarchical 8 per node over the inner ring: one node; over halving-doubling, which claims none: nothing.
  EXPECT_EQ(periodOf(kHierarchicalAllreduce, 64 * 10, {.ranksPerNode = 8}), 8);
  EXPECT_EQ(periodOf(kHierarchicalAllreduce, 64 * 10, {.ranksPerNode = 8, .inner = "halving-doubling"}), 0);
  // torus-2d 8x8: one row, where the rows and the columns' ring divide the elements.
  EXPECT_EQ(periodOf(kTorus2dAllreduce, 64 * 10, {.dims = std::vector<int>{8, 8}}), 8);
  EXPECT_EQ(periodOf(kTorus2dAllreduce, 8 * 9, {.dims = std::vector<int>{8, 8}}), 0);
  // nccl-ring, 4 channels of 8 per node: one node, where every channel's part divides by the ranks.
  EXPECT_EQ(periodOf(kNcclRingAllreduce, 64 * 4 * 3, {.ranksPerNode = 8, .channels = 4}), 8);
  EXPECT_EQ(periodOf(kNcclRingAllreduce, 64 * 3, {.ranksPerNode = 8, .channels = 4}), 0);
}

// A grouped schedule (FSDP HYBRID_SHARD's collectives) claims its groups' size within them, and across them
// the groups' size times the algorithm's claim: checked on every rank, and refused where it must not hold.
TEST(TranslationPeriod, GroupedSchedulesClaimWhatHoldsOnEveryRank) {
  for (const AlgorithmDefinition* algorithm : {&kRingReduceScatter, &kRingAllGather, &kRingAllreduce})
    for (RankGroups groups : {RankGroups::WithinGroups, RankGroups::AcrossGroups})
      for (Elements elements : {Elements{16 * 8}, Elements{16 * 8 + 3}}) {
        const Schedule schedule = makeGroupedSchedule(*algorithm, {algorithm->collective, 16, elements, 4}, 4, groups, {});
        const int period = schedule.translationPeriod();
        const std::string label = std::string(algorithm->name) + " " + std::string(toString(algorithm->collective)) +
                                  (groups == RankGroups::WithinGroups ? " within" : " across") + ", " + std::to_string(elements);
        const int claimed = groups == RankGroups::WithinGroups || elements % 16 == 0 ? 4 : 0;
        EXPECT_EQ(period, claimed) << label;
        if (period == 0) continue;
        for (Rank r = 0; r < 16; ++r)
          EXPECT_EQ(differenceFromMoved(schedule.program(r), schedule.program((r + period) % 16), period, 16), "") << label << ", rank " << r;
      }
  // Within groups a rank talks only to its own group; across them only to its own index in every group.
  const Schedule within = makeGroupedSchedule(kRingReduceScatter, {CollectiveKind::ReduceScatter, 16, 64, 4}, 4, RankGroups::WithinGroups, {});
  const Schedule across = makeGroupedSchedule(kRingAllreduce, {CollectiveKind::Allreduce, 16, 64, 4}, 4, RankGroups::AcrossGroups, {});
  for (Rank r = 0; r < 16; ++r) {
    const Program a = within.program(r), b = across.program(r);
    for (StepIndex i = 0; i < a.size(); ++i) EXPECT_EQ(a.step(i).peer / 4, r / 4) << "rank " << r;
    for (StepIndex i = 0; i < b.size(); ++i) EXPECT_EQ(b.step(i).peer % 4, r % 4) << "rank " << r;
    ASSERT_GT(b.size(), 0u);
    EXPECT_EQ(b.step(0).range.count, 64 / 4 / 4) << "a quarter of the node's quarter";
  }
  EXPECT_THROW(makeGroupedSchedule(kRingAllreduce, {CollectiveKind::Allreduce, 16, 64, 4}, 3, RankGroups::WithinGroups, {}), InvalidArgument);
}

}  // namespace
}  // namespace ddl::testing
