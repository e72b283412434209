// Where a program run out of place finds each step's current values: in the input until a step writes
// them, in the output after; what no step writes is copied first, and so is the unwritten part of a range
// that straddles a write, which is then read from the output.

#include <gtest/gtest.h>

#include "algorithms/execution/out_of_place.hpp"
#include "algorithms/schedule/program_builder.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl {
namespace {

using Ranges = std::vector<Range>;

Ranges asVector(std::span<const Range> ranges) { return Ranges(ranges.begin(), ranges.end()); }

TEST(OutOfPlace, AnExchangeSendsAndAddsTheInputAndWritesTheSumToTheOutput) {
  ProgramBuilder builder(0, 10);
  builder.send(1, {0, 10});
  builder.receiveReduce(1, {0, 10});
  const Program program = std::move(builder).finish();
  const OutOfPlacePlan plan(program);
  EXPECT_TRUE(plan.readsInput(0));
  EXPECT_TRUE(plan.readsInput(1)) << "the reduction adds the arrived values to the input's";
  EXPECT_TRUE(plan.copiedFirst().empty());
}

TEST(OutOfPlace, ARingReadsTheInputUntilItsBlocksAreReducedThenTheOutput) {
  const Program program = testing::allreduce("ring", 4, 400).program(0);
  const OutOfPlacePlan plan(program);
  // The reduce-scatter's first send and first reduction start from rank 0's own values; the all-gather
  // sends the sums, which are in the output.
  bool sawInput = false, sawOutput = false;
  for (StepIndex s = 0; s < program.size(); ++s) {
    if (!program.step(s).reads()) continue;
    (plan.readsInput(s) ? sawInput : sawOutput) = true;
  }
  EXPECT_TRUE(sawInput);
  EXPECT_TRUE(sawOutput);
  EXPECT_TRUE(plan.readsInput(0)) << program.describe(0);
  EXPECT_TRUE(plan.copiedFirst().empty()) << "every block of an allreduce's result arrives or is reduced";
}

TEST(OutOfPlace, AnAllGatherCopiesTheRanksOwnBlock) {
  const Program program = testing::makeSchedule(CollectiveKind::AllGather, "ring", 4, 400).program(2);
  const OutOfPlacePlan plan(program);
  EXPECT_EQ(asVector(plan.copiedFirst()), (Ranges{blockOf({0, 400}, 4, 2)}));
}

TEST(OutOfPlace, ARankAloneCopiesItsWholeBuffer) {
  const Program program = testing::allreduce("ring", 1, 37).program(0);
  EXPECT_EQ(program.size(), 0);
  EXPECT_EQ(asVector(OutOfPlacePlan(program).copiedFirst()), (Ranges{{0, 37}}));
}

TEST(OutOfPlace, ASendOverAWrittenAndAnUnwrittenPartReadsTheOutputWithTheUnwrittenPartCopiedFirst) {
  ProgramBuilder builder(0, 12);
  builder.receiveCopy(1, {0, 4});
  builder.send(1, {0, 8});
  builder.receiveReduce(1, {6, 4});
  builder.receiveCopy(1, {10, 2});
  const Program program = std::move(builder).finish();
  const OutOfPlacePlan plan(program);
  EXPECT_FALSE(plan.readsInput(1));
  // The reduction after the send still finds [6, 10) unwritten: it reads the input, the same values.
  EXPECT_TRUE(plan.readsInput(2));
  // [4, 8) for the send, joined with [4, 6), which no step writes; [10, 12) arrives.
  EXPECT_EQ(asVector(plan.copiedFirst()), (Ranges{{4, 4}}));
}

TEST(OutOfPlace, NoAllreduceOfTheRegistryCopiesAnythingOnMoreThanOneRank) {
  // Every element of an allreduce's result arrives or is reduced on every rank, and no step reads a range
  // that straddles a write: out of place, the registry's allreduces read the input and never copy it.
  for (int ranks = 2; ranks <= 24; ++ranks) {
    std::vector<std::pair<std::string, AlgorithmOptions>> shapes = {
        {"ring", {}}, {"halving-doubling", {}}, {"recursive-doubling", {}}, {"binomial-tree", {}},
        {"double-binary-tree", {}}, {"double-binary-tree", {.chunkBytes = 64}}};
    for (const auto& dims : testing::orderedFactorizations(ranks, 3)) shapes.push_back({"ddl", {.dims = dims}});
    for (int divisor : testing::divisorsOf(ranks)) {
      shapes.push_back({"hierarchical", {.ranksPerNode = divisor, .inner = "double-binary-tree"}});
      shapes.push_back({"torus-2d", {.dims = std::vector<int>{divisor, ranks / divisor}, .inner = "halving-doubling"}});
    }
    for (const auto& [name, options] : shapes)
      for (Elements elements : {Elements{1}, Elements{ranks} * 3 + 1, Elements{1000}}) {
        const Schedule schedule = testing::allreduce(name, ranks, elements, options);
        for (Rank rank = 0; rank < ranks; ++rank)
          ASSERT_TRUE(OutOfPlacePlan(schedule.program(rank)).copiedFirst().empty())
              << schedule.description() << ", rank " << rank << ", " << elements << " elements";
      }
  }
}

}  // namespace
}  // namespace ddl
