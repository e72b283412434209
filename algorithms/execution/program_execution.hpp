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

  bool posted(StepIndex step) const { return state(step).flags & kPosted; }
  // Whether every step `step` depends on has completed: an executor may then reduce the parts of a
  // receive-reduce that have already arrived, before its whole transfer has ended.
  bool dependenciesComplete(StepIndex step) const { return state(step).pendingDependencies == 0; }
  bool completed(StepIndex step) const { return state(step).flags & kCompleted; }
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
  // Everything the rules read or write of one step, in one record: a simulator runs thousands of ranks'
  // executions at once, and one record is one cache miss where separate arrays were several.
  struct StepState {
    std::int32_t pendingDependencies = 0;
    StepIndex previousInStream = -1;
    StepIndex nextInStream = -1;
    std::int32_t dependentsBegin = 0;  // dependents of step i: dependents_[states_[i].dependentsBegin ..[i+1])
    std::uint32_t channel = 0;         // index into channelBegin_
    std::uint8_t flags = 0;
    bool receiveReduce = false;
    bool empty = false;  // zero elements: completes when posted
  };
  static std::size_t index(StepIndex step) { return static_cast<std::size_t>(step); }
  StepState& state(StepIndex step) { return states_[index(step)]; }
  const StepState& state(StepIndex step) const { return states_[index(step)]; }

  bool mayPost(StepIndex step) const;
  void advance(std::size_t channel, std::vector<Action>& actions);
  void tryReduce(StepIndex step, std::vector<Action>& actions);
  void complete(StepIndex step);
  void settle(std::vector<Action>& actions);
  StepIndex firstIncompleteDependency(StepIndex step) const;

  const Program& program_;
  std::vector<StepState> states_;  // one per step, and one past the last for its dependentsBegin
  std::vector<StepIndex> dependents_;
  std::vector<StepIndex> channelSteps_;       // each channel's steps in program order, channel after channel
  std::vector<std::uint32_t> channelBegin_;   // channel c: channelSteps_[channelBegin_[c] .. channelBegin_[c+1])
  std::vector<std::uint32_t> nextToPost_;     // per channel, an index into channelSteps_
  std::vector<StepIndex> completedUnsettled_;  // completions whose dependents are not yet told
  StepIndex completedCount_ = 0;
};

}  // namespace ddl
