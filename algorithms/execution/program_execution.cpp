#include "algorithms/execution/program_execution.hpp"

#include <algorithm>
#include <map>

namespace ddl {

ProgramExecution::ProgramExecution(const Program& program)
    : program_(program),
      flags_(static_cast<std::size_t>(program.size()), 0),
      pendingDependencies_(static_cast<std::size_t>(program.size()), 0),
      dependentsBegin_(static_cast<std::size_t>(program.size()) + 1, 0),
      channelOf_(static_cast<std::size_t>(program.size()), 0) {
  std::map<Channel, std::uint32_t> channels;
  for (StepIndex step = 0; step < program.size(); ++step) {
    const auto [it, added] = channels.try_emplace(program.step(step).channel, static_cast<std::uint32_t>(channelSteps_.size()));
    if (added) channelSteps_.emplace_back();
    channelSteps_[it->second].push_back(step);
    channelOf_[index(step)] = it->second;
    pendingDependencies_[index(step)] = program.step(step).dependencyCount;
    for (StepIndex dependency : program.dependenciesOf(step)) ++dependentsBegin_[index(dependency) + 1];
  }
  nextToPost_.assign(channelSteps_.size(), 0);
  for (std::size_t i = 1; i < dependentsBegin_.size(); ++i) dependentsBegin_[i] += dependentsBegin_[i - 1];
  dependents_.resize(program.dependencyList().size());
  std::vector<std::int32_t> filled(dependentsBegin_.begin(), dependentsBegin_.end() - 1);
  for (StepIndex step = 0; step < program.size(); ++step)
    for (StepIndex dependency : program.dependenciesOf(step))
      dependents_[static_cast<std::size_t>(filled[index(dependency)]++)] = step;
}

void ProgramExecution::restart() {
  std::fill(flags_.begin(), flags_.end(), 0);
  for (StepIndex step = 0; step < program_.size(); ++step) pendingDependencies_[index(step)] = program_.step(step).dependencyCount;
  std::fill(nextToPost_.begin(), nextToPost_.end(), 0);
  completedUnsettled_.clear();
  completedCount_ = 0;
}

void ProgramExecution::start(std::vector<Action>& actions) {
  for (std::size_t channel = 0; channel < channelSteps_.size(); ++channel) advance(channel, actions);
  settle(actions);
}

void ProgramExecution::transferred(StepIndex step, std::vector<Action>& actions) {
  flags_[index(step)] |= kTransferred;
  if (program_.step(step).kind == StepKind::ReceiveReduce) {
    tryReduce(step, actions);
  } else {
    complete(step);
  }
  settle(actions);
}

void ProgramExecution::reduced(StepIndex step, std::vector<Action>& actions) {
  complete(step);
  settle(actions);
}

bool ProgramExecution::mayPost(StepIndex step) const {
  const StepIndex previous = program_.previousInStream(step);
  if (previous >= 0 && !completed(previous)) return false;
  return program_.step(step).kind == StepKind::ReceiveReduce || pendingDependencies_[index(step)] == 0;
}

// Posts the channel's steps in order for as long as the next one may be posted.
void ProgramExecution::advance(std::size_t channel, std::vector<Action>& actions) {
  const std::vector<StepIndex>& steps = channelSteps_[channel];
  std::size_t& next = nextToPost_[channel];
  while (next < steps.size() && mayPost(steps[next])) {
    const StepIndex step = steps[next++];
    flags_[index(step)] |= kPosted;
    if (program_.step(step).range.count == 0) {
      flags_[index(step)] |= kTransferred;
      complete(step);
    } else {
      actions.push_back({ActionKind::Post, step});
    }
  }
}

void ProgramExecution::tryReduce(StepIndex step, std::vector<Action>& actions) {
  std::uint8_t& flags = flags_[index(step)];
  if (!(flags & kTransferred) || (flags & (kReducing | kCompleted)) || pendingDependencies_[index(step)] > 0) return;
  flags |= kReducing;
  actions.push_back({ActionKind::Reduce, step});
}

void ProgramExecution::complete(StepIndex step) {
  flags_[index(step)] |= kCompleted;
  ++completedCount_;
  completedUnsettled_.push_back(step);
}

// Tells the dependents of every completed step, posting and reducing what that allows. Iterative, since a
// step of zero elements completes the moment it is posted.
void ProgramExecution::settle(std::vector<Action>& actions) {
  while (!completedUnsettled_.empty()) {
    const StepIndex step = completedUnsettled_.back();
    completedUnsettled_.pop_back();
    const Step& s = program_.step(step);
    const auto stream = program_.streamSteps(s.stream);
    if (static_cast<std::size_t>(s.sequence) + 1 < stream.size())
      advance(channelOf_[index(stream[static_cast<std::size_t>(s.sequence) + 1])], actions);
    for (auto i = dependentsBegin_[index(step)]; i < dependentsBegin_[index(step) + 1]; ++i) {
      const StepIndex dependent = dependents_[static_cast<std::size_t>(i)];
      if (--pendingDependencies_[index(dependent)] > 0) continue;
      if (program_.step(dependent).kind == StepKind::ReceiveReduce) {
        tryReduce(dependent, actions);
      } else {
        advance(channelOf_[index(dependent)], actions);
      }
    }
  }
}

StepIndex ProgramExecution::firstIncomplete() const {
  for (StepIndex step = 0; step < program_.size(); ++step)
    if (!completed(step)) return step;
  return -1;
}

StepIndex ProgramExecution::firstIncompleteDependency(StepIndex step) const {
  for (StepIndex dependency : program_.dependenciesOf(step))
    if (!completed(dependency)) return dependency;
  return kInProgress;
}

StepIndex ProgramExecution::blocker(StepIndex step) const {
  const std::uint8_t flags = flags_[index(step)];
  if (!(flags & kPosted)) {
    const std::uint32_t channel = channelOf_[index(step)];
    const StepIndex next = channelSteps_[channel][nextToPost_[channel]];
    if (next != step) return next;
    const StepIndex previous = program_.previousInStream(step);
    return previous >= 0 && !completed(previous) ? previous : firstIncompleteDependency(step);
  }
  if (!(flags & kTransferred)) return kWaitsForPeer;
  if (!(flags & kReducing)) return firstIncompleteDependency(step);
  return kInProgress;
}

}  // namespace ddl
