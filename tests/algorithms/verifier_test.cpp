// The verifier proves correct schedules correct and finds each kind of mistake, naming the rank and step.

#include <gtest/gtest.h>

#include "algorithms/verify/verifier.hpp"
#include "tests/algorithms/schedule_editing.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

// The step of `program` matching `predicate`, first found.
template <class Predicate>
StepIndex findStep(const Program& program, Predicate&& predicate) {
  for (StepIndex i = 0; i < program.size(); ++i)
    if (predicate(program.step(i))) return i;
  return -1;
}

TEST(Verifier, AcceptsARingAllreduce) {
  const VerificationReport report = verify(allreduce("ring", 5, 23));
  EXPECT_TRUE(report.ok()) << report.message;
}

TEST(Verifier, RejectsAScheduleWithOneStepRemoved) {
  const Schedule ring = allreduce("ring", 4, 16);
  const VerificationReport report = verify(edited(ring, 2, [](auto steps) { return withoutStep(steps, 3); }));
  // Rank 2 loses a receive from rank 1, so rank 1's sends no longer line up with rank 2's receives.
  EXPECT_EQ(report.problem, VerificationProblem::Unmatched) << report.message;
  EXPECT_EQ(report.rank, 1) << report.message;
}

TEST(Verifier, RejectsAScheduleWithOnePeerSwapped) {
  const Schedule ring = allreduce("ring", 4, 16);
  const VerificationReport report = verify(edited(ring, 0, [](auto steps) {
    steps[0].step.peer = 2;  // the first send goes to rank 2 instead of rank 1
    return steps;
  }));
  EXPECT_EQ(report.problem, VerificationProblem::Unmatched) << report.message;
  EXPECT_EQ(report.rank, 0);
  EXPECT_EQ(report.step, 0);
}

TEST(Verifier, RejectsAScheduleWithOneReductionDoubled) {
  const Schedule ring = allreduce("ring", 4, 16);
  const Program receiver = ring.program(1);
  const StepIndex reduction = findStep(receiver, [](const Step& s) { return s.kind == StepKind::ReceiveReduce; });
  const Program sender = ring.program(0);
  const StepIndex send = findStep(sender, [&](const Step& s) { return s.sends() && s.range == receiver.step(reduction).range; });
  ASSERT_GE(send, 0);
  // Rank 0 sends the block twice and rank 1 adds it twice.
  const Schedule doubledSend = edited(ring, 0, [&](auto steps) { return withStepRepeated(steps, send); });
  const Schedule doubled = edited(doubledSend, 1, [&](auto steps) { return withStepRepeated(steps, reduction); });
  const VerificationReport report = verify(doubled);
  EXPECT_EQ(report.problem, VerificationProblem::DoubleCounted) << report.message;
  EXPECT_EQ(report.rank, 1);
  EXPECT_EQ(report.step, reduction + 1);
  EXPECT_NE(report.message.find("already hold rank 0"), std::string::npos) << report.message;
}

TEST(Verifier, RejectsAnAllGatherCopyTurnedIntoAReduction) {
  const Schedule ring = allreduce("ring", 4, 16);
  const Program program = ring.program(3);
  const StepIndex copy = findStep(program, [](const Step& s) { return s.kind == StepKind::ReceiveCopy; });
  const VerificationReport report = verify(edited(ring, 3, [&](auto steps) {
    steps[static_cast<std::size_t>(copy)].step.kind = StepKind::ReceiveReduce;
    return steps;
  }));
  EXPECT_EQ(report.problem, VerificationProblem::DoubleCounted) << report.message;
  EXPECT_EQ(report.rank, 3);
  EXPECT_EQ(report.step, copy);
}

TEST(Verifier, FindsARaceWhenADependencyIsDropped) {
  const Schedule ring = allreduce("ring", 4, 16);
  const Program program = ring.program(0);
  const StepIndex dependent = findStep(program, [](const Step& s) { return s.dependencyCount > 0; });
  ASSERT_GE(dependent, 0);
  const VerificationReport report = verify(edited(ring, 0, [&](auto steps) {
    steps[static_cast<std::size_t>(dependent)].after.clear();
    return steps;
  }));
  EXPECT_EQ(report.problem, VerificationProblem::Race) << report.message;
  EXPECT_EQ(report.rank, 0);
  EXPECT_EQ(report.step, dependent);
}

TEST(Verifier, FindsACyclicWaitAndNamesItsSteps) {
  // Each rank receives before it sends, and its send needs what it receives: neither send is ever posted.
  const VerificationReport report = verify(mutuallyWaitingSchedule());
  EXPECT_EQ(report.problem, VerificationProblem::CyclicWait) << report.message;
  EXPECT_EQ(report.rank, 0);
  EXPECT_NE(report.message.find("rank 0 step 1"), std::string::npos) << report.message;
  EXPECT_NE(report.message.find("rank 1 step 1"), std::string::npos) << report.message;
}

TEST(Verifier, FindsDataSentBeforeItExists) {
  // In an all-gather rank 0 starts with block 0 only; sending block 1 first sends nothing meaningful.
  std::vector<Program> programs;
  ProgramBuilder zero(0, 2);
  zero.send(1, {1, 1});
  programs.push_back(std::move(zero).finish());
  ProgramBuilder one(1, 2);
  one.receiveCopy(0, {1, 1});
  programs.push_back(std::move(one).finish());
  const VerificationReport report =
      verify(Schedule::fromPrograms({CollectiveKind::AllGather, 2, 2, 4}, "bad", std::move(programs)));
  EXPECT_EQ(report.problem, VerificationProblem::UndefinedData) << report.message;
  EXPECT_EQ(report.rank, 0);
  EXPECT_EQ(report.step, 0);
}

TEST(Verifier, FindsAnIncompleteResult) {
  // A reduce-scatter is not an allreduce: every rank lacks the other ranks' contributions outside its block.
  const Schedule reduceScatter = makeSchedule(CollectiveKind::ReduceScatter, "ring", 4, 8);
  std::vector<Program> programs = reduceScatter.allPrograms();
  const VerificationReport report =
      verify(Schedule::fromPrograms({CollectiveKind::Allreduce, 4, 8, 4}, "half", std::move(programs)));
  EXPECT_EQ(report.problem, VerificationProblem::WrongResult) << report.message;
  EXPECT_EQ(report.rank, 0);
}

TEST(Verifier, RejectsAStepAddressedToItsOwnRank) {
  const VerificationReport report = verify(edited(allreduce("ring", 3, 9), 1, [](auto steps) {
    steps[2].step.peer = 1;
    return steps;
  }));
  EXPECT_EQ(report.problem, VerificationProblem::InvalidStep) << report.message;
  EXPECT_EQ(report.rank, 1);
  EXPECT_EQ(report.step, 2);
}

TEST(Verifier, RejectsAReceiveOfAnotherRangeThanItsSend) {
  const VerificationReport report = verify(edited(allreduce("ring", 3, 9), 1, [](auto steps) {
    steps[1].step.range.count -= 1;
    return steps;
  }));
  EXPECT_EQ(report.problem, VerificationProblem::Unmatched) << report.message;
}

}  // namespace
}  // namespace ddl::testing
