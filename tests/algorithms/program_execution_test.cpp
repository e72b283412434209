#include <gtest/gtest.h>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/execution/program_execution.hpp"
#include "algorithms/schedule/program_builder.hpp"

namespace ddl {
namespace {

using Action = ProgramExecution::Action;
using Kind = ProgramExecution::ActionKind;

std::vector<StepIndex> posted(const std::vector<Action>& actions) {
  std::vector<StepIndex> steps;
  for (const Action& action : actions)
    if (action.kind == Kind::Post) steps.push_back(action.step);
  return steps;
}

// Recursive doubling's exchange: send the buffer to rank 1 and add rank 1's buffer into it. The reduction
// must wait for the send to finish reading, but the receive must not, or both ranks would wait forever.
Program exchange() {
  ProgramBuilder builder(0, 10);
  builder.send(1, {0, 10});
  builder.receiveReduce(1, {0, 10});
  return std::move(builder).finish();
}

TEST(ProgramExecution, PostsAReceiveReduceBeforeItsDependenciesComplete) {
  const Program program = exchange();
  ProgramExecution execution(program);
  std::vector<Action> actions;
  execution.start(actions);
  EXPECT_EQ(posted(actions), (std::vector<StepIndex>{0, 1}));
}

TEST(ProgramExecution, ReducesOnlyOnceTheTransferEndedAndDependenciesCompleted) {
  const Program program = exchange();
  ProgramExecution execution(program);
  std::vector<Action> actions;
  execution.start(actions);
  actions.clear();
  execution.transferred(1, actions);  // rank 1's data arrived, but our send is still reading the buffer
  EXPECT_TRUE(actions.empty());
  EXPECT_EQ(execution.blocker(1), 0);
  execution.transferred(0, actions);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].kind, Kind::Reduce);
  EXPECT_EQ(actions[0].step, 1);
  actions.clear();
  execution.reduced(1, actions);
  EXPECT_TRUE(execution.finished());
}

TEST(ProgramExecution, AConnectionCarriesOneMessageAtATime) {
  ProgramBuilder builder(0, 10);
  builder.send(1, {0, 5});
  builder.send(1, {5, 5});
  const Program program = std::move(builder).finish();
  ProgramExecution execution(program);
  std::vector<Action> actions;
  execution.start(actions);
  EXPECT_EQ(posted(actions), std::vector<StepIndex>{0});
  EXPECT_EQ(execution.blocker(1), 0);
  actions.clear();
  execution.transferred(0, actions);
  EXPECT_EQ(posted(actions), std::vector<StepIndex>{1});
}

TEST(ProgramExecution, AStepWaitingForItsDependenciesHoldsBackTheRestOfItsChannelOnly) {
  ProgramBuilder builder(0, 10);
  builder.receiveCopy(1, {0, 5});     // 0
  builder.send(2, {0, 5});            // 1: waits for step 0
  builder.send(3, {5, 5});            // 2: behind step 1 in channel 0
  builder.send(3, {5, 5}, 1);         // 3: channel 1, free to go
  const Program program = std::move(builder).finish();
  ProgramExecution execution(program);
  std::vector<Action> actions;
  execution.start(actions);
  EXPECT_EQ(posted(actions), (std::vector<StepIndex>{0, 3}));
  EXPECT_EQ(execution.blocker(2), 1);
  EXPECT_EQ(execution.blocker(1), 0);
  EXPECT_EQ(execution.blocker(0), ProgramExecution::kWaitsForPeer);
  actions.clear();
  execution.transferred(0, actions);
  EXPECT_EQ(posted(actions), (std::vector<StepIndex>{1, 2}));
}

TEST(ProgramExecution, StepsOfZeroElementsCompleteAsSoonAsTheyArePosted) {
  ProgramBuilder builder(0, 10);
  builder.send(1, {3, 0});
  builder.receiveReduce(1, {3, 0});
  builder.send(1, {0, 10});
  const Program program = std::move(builder).finish();
  ProgramExecution execution(program);
  std::vector<Action> actions;
  execution.start(actions);
  EXPECT_EQ(posted(actions), std::vector<StepIndex>{2});
  EXPECT_TRUE(execution.completed(0));
  EXPECT_TRUE(execution.completed(1));
}

// Every action of a run to its end, each transfer and reduction ending in the order it was asked for.
std::vector<std::pair<Kind, StepIndex>> runToTheEnd(ProgramExecution& execution) {
  std::vector<std::pair<Kind, StepIndex>> log;
  std::vector<Action> actions;
  execution.start(actions);
  for (std::size_t next = 0; next < actions.size(); ++next) {
    const Action action = actions[next];
    log.emplace_back(action.kind, action.step);
    if (action.kind == Kind::Post) {
      execution.transferred(action.step, actions);
    } else {
      execution.reduced(action.step, actions);
    }
  }
  return log;
}

// A runner keeps one execution per program and restarts it for each run: each run, even after one that
// stopped half-way, must be the run a new execution would make.
TEST(ProgramExecution, ARestartedExecutionRunsAsANewOneDoes) {
  AlgorithmOptions options;
  options.dims = std::vector<int>{2, 3};
  const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, "ddl"), {CollectiveKind::Allreduce, 6, 600, 4}, options);
  const Program program = schedule.program(1);
  ProgramExecution fresh(program);
  const auto expected = runToTheEnd(fresh);
  ASSERT_TRUE(fresh.finished());
  ASSERT_GT(expected.size(), 10u);

  ProgramExecution reused(program);
  runToTheEnd(reused);
  reused.restart();
  EXPECT_FALSE(reused.finished());
  EXPECT_EQ(reused.firstIncomplete(), 0);
  EXPECT_EQ(runToTheEnd(reused), expected);
  EXPECT_TRUE(reused.finished());

  // Stopped after its first transfer, then restarted.
  reused.restart();
  std::vector<Action> actions;
  reused.start(actions);
  reused.transferred(actions.front().step, actions);
  reused.restart();
  EXPECT_EQ(runToTheEnd(reused), expected);
}

}  // namespace
}  // namespace ddl
