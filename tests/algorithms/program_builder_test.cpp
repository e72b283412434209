#include <gtest/gtest.h>

#include "algorithms/schedule/program_builder.hpp"

namespace ddl {
namespace {

std::vector<StepIndex> dependencies(const Program& program, StepIndex step) {
  auto span = program.dependenciesOf(step);
  return {span.begin(), span.end()};
}

TEST(ProgramBuilder, SendOfDataJustReducedWaitsForTheReduction) {
  ProgramBuilder builder(0, 100);
  builder.receiveReduce(1, {0, 50});
  builder.send(2, {10, 10});
  const Program program = std::move(builder).finish();
  EXPECT_EQ(dependencies(program, 1), std::vector<StepIndex>{0});
}

TEST(ProgramBuilder, ReductionIntoDataBeingSentWaitsForTheSend) {
  ProgramBuilder builder(0, 100);
  builder.send(1, {0, 100});
  builder.receiveReduce(1, {0, 100});
  const Program program = std::move(builder).finish();
  EXPECT_EQ(dependencies(program, 1), std::vector<StepIndex>{0});
}

TEST(ProgramBuilder, SecondWriteOfARangeWaitsForTheFirst) {
  ProgramBuilder builder(0, 100);
  builder.receiveReduce(1, {0, 100});
  builder.receiveCopy(2, {50, 10});
  const Program program = std::move(builder).finish();
  EXPECT_EQ(dependencies(program, 1), std::vector<StepIndex>{0});
}

TEST(ProgramBuilder, StepsOnDisjointRangesMayRunTogether) {
  ProgramBuilder builder(0, 100);
  builder.receiveReduce(1, {0, 50});
  builder.send(2, {50, 50});
  builder.receiveCopy(3, {50, 0});
  const Program program = std::move(builder).finish();
  EXPECT_TRUE(dependencies(program, 1).empty());
  EXPECT_TRUE(dependencies(program, 2).empty());
}

TEST(ProgramBuilder, ListsConflictsWithinAStreamToo) {
  ProgramBuilder builder(0, 100);
  builder.receiveReduce(1, {0, 100});
  builder.receiveReduce(1, {0, 100});
  const Program program = std::move(builder).finish();
  EXPECT_EQ(dependencies(program, 1), std::vector<StepIndex>{0});
  EXPECT_EQ(program.previousInStream(1), 0);
}

TEST(ProgramBuilder, ReadersOfEveryStreamHoldBackTheNextWrite) {
  ProgramBuilder builder(0, 100);
  builder.send(1, {0, 100});
  builder.send(2, {0, 100});
  builder.send(3, {0, 100});
  builder.send(4, {0, 100});
  builder.receiveCopy(5, {0, 100});
  const Program program = std::move(builder).finish();
  EXPECT_EQ(dependencies(program, 4), (std::vector<StepIndex>{0, 1, 2, 3}));
}

TEST(Program, NumbersMessagesPerPeerDirectionAndChannel) {
  ProgramBuilder builder(0, 10);
  builder.send(1, {0, 1});
  builder.send(1, {1, 1});
  builder.receiveCopy(1, {2, 1});
  builder.send(1, {3, 1}, 1);
  builder.send(2, {4, 1});
  builder.send(1, {5, 1});
  const Program program = std::move(builder).finish();
  std::vector<int> sequences;
  for (const Step& step : program.steps()) sequences.push_back(step.sequence);
  EXPECT_EQ(sequences, (std::vector<int>{0, 1, 0, 0, 0, 2}));
  EXPECT_EQ(program.streamCount(), 4);
  EXPECT_EQ(program.findStream({true, 1, 0}), program.step(0).stream);
  EXPECT_EQ(program.findStream({true, 3, 0}), -1);
}

TEST(Program, DescribesAStepForErrorMessages) {
  ProgramBuilder builder(3, 1024);
  builder.receiveReduce(2, {768, 256});
  const Program program = std::move(builder).finish();
  EXPECT_EQ(program.describe(0), "rank 3 step 0 (receive-reduce [768, 1024) from rank 2, channel 0, message #0)");
}

}  // namespace
}  // namespace ddl
