#pragma once
// The rules by which one rank's program runs, as a state machine every executor drives: the verifier and
// the cost walk here, the SimGrid actors and the MPI/NCCL runtimes elsewhere. The executor performs the
// actions it is given (post a message, start a reduction) and reports when they end.
//
// - The steps of one channel are posted in program order, as one thread issuing them would.
// - A connection carries one message at a time: a step is posted only once the previous step of its
//   stream (same peer, direction and channel) has completed.
// - A send or receive-copy is posted once its dependencies have completed; its transfer completes it.
// - A receive-reduce is posted without waiting (its data lands in staging); once its transfer has ended
//   and its dependencies have completed it reduces, and the reduction completes it.
// - A transfer starts when both the send and its matching receive are posted.
// - A step of zero elements moves nothing: it completes as soon as it is posted.

#include <cstdint>
#include <vector>

#include "algorithms/schedule/program.hpp"

namespace ddl {

class ProgramExecution {
 public:
  enum class ActionKind : std::uint8_t { Post, Reduce };
  struct Action {
    ActionKind kind;
    StepIndex step;
  };

  // Keeps a reference to `program`, which must outlive this object.
  explicit ProgramExecution(const Program& program);

  const Program& program() const { return program_; }

  // Appends the actions possible before anything has happened.
  void start(std::vector<Action>& actions);
  // Back to the state before start(), for another run of the same program; what the constructor built
  // from the program stays, which costs more than a small collective's messages to build again.
  void restart();
  // The step's transfer has ended: completes a send or receive-copy; a receive-reduce may now reduce.
  void transferred(StepIndex step, std::vector<Action>& actions);
  // The step's reduction has ended: completes the receive-reduce.
  void reduced(StepIndex step, std::vector<Action>& actions);

  bool posted(StepIndex step) const { return flags_[index(step)] & kPosted; }
  // Whether every step `step` depends on has completed: an executor may then reduce the parts of a
  // receive-reduce that have already arrived, before its whole transfer has ended.
  bool dependenciesComplete(StepIndex step) const { return pendingDependencies_[index(step)] == 0; }
  bool completed(StepIndex step) const { return flags_[index(step)] & kCompleted; }
  bool finished() const { return completedCount_ == program_.size(); }
  StepIndex firstIncomplete() const;

  // What keeps an incomplete `step` from completing: an earlier step of this rank (the unposted step
  // before it in its channel, the previous step of its stream, or a dependency), or kWaitsForPeer if it is posted and waits for its match,
  // or kInProgress.
  static constexpr StepIndex kWaitsForPeer = -1;
  static constexpr StepIndex kInProgress = -2;
  StepIndex blocker(StepIndex step) const;

 private:
  static constexpr std::uint8_t kPosted = 1, kTransferred = 2, kReducing = 4, kCompleted = 8;
  static std::size_t index(StepIndex step) { return static_cast<std::size_t>(step); }

  bool mayPost(StepIndex step) const;
  void advance(std::size_t channel, std::vector<Action>& actions);
  void tryReduce(StepIndex step, std::vector<Action>& actions);
  void complete(StepIndex step);
  void settle(std::vector<Action>& actions);
  StepIndex firstIncompleteDependency(StepIndex step) const;

  const Program& program_;
  std::vector<std::uint8_t> flags_;
  std::vector<std::int32_t> pendingDependencies_;
  std::vector<std::int32_t> dependentsBegin_;  // dependents of step i: dependents_[dependentsBegin_[i] ..[i+1])
  std::vector<StepIndex> dependents_;
  std::vector<std::vector<StepIndex>> channelSteps_;  // each channel's steps in program order
  std::vector<std::uint32_t> channelOf_;              // step -> index into channelSteps_
  std::vector<std::size_t> nextToPost_;               // per channel
  std::vector<StepIndex> completedUnsettled_;         // completions whose dependents are not yet told
  StepIndex completedCount_ = 0;
};

}  // namespace ddl
