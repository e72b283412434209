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

TEST(TranslationPeriod, EveryClaimHoldsOnEveryRank) {
  ASSERT_FALSE(claimingAlgorithms().empty());
  for (const AlgorithmDefinition* algorithm : claimingAlgorithms()) {
    if (algorithm->options != kNoOptions) ADD_FAILURE() << algorithm->name << " takes options: test them here";
    for (int ranks : {1, 2, 3, 4, 6, 8, 12, 16}) {
      for (Elements elements : {Elements{0}, Elements{ranks * 5}, Elements{ranks * 5 + 3}, Elements{ranks * 64}}) {
        const Schedule schedule = makeSchedule(*algorithm, {algorithm->collective, ranks, elements, 4}, {});
        const int period = schedule.translationPeriod();
        if (period == 0) continue;
        ASSERT_EQ(ranks % period, 0) << algorithm->name << " at " << ranks << " ranks claims " << period;
        for (Rank r = 0; r < ranks; ++r) {
          const Rank moved = (r + period) % ranks;
          EXPECT_EQ(differenceFromMoved(schedule.program(r), schedule.program(moved), period, ranks), "")
              << algorithm->name << ", " << ranks << " ranks, " << elements << " elements: rank " << moved
              << " against rank " << r << " moved by " << period;
        }
      }
    }
  }
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
