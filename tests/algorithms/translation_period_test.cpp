// A schedule's claimed translation period (Schedule::translationPeriod) is a promise the step engine builds
// on: it simulates rank r once for all of r, r + T, r + 2T, ... (sim/step/step_symmetry.hpp). Checked here on
// every rank of every algorithm that makes one, at sizes where it is made and where it must not be.

#include <algorithm>

#include <gtest/gtest.h>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/registry.hpp"

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

}  // namespace
}  // namespace ddl::testing
