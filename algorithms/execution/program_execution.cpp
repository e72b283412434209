#include "algorithms/execution/program_execution.hpp"

#include <map>

namespace ddl {

ProgramExecution::ProgramExecution(const Program& program) : program_(program), states_(index(program.size()) + 1) {
  // Channels numbered in order of first appearance, each channel's steps in program order.
  std::map<Channel, std::uint32_t> channels;
  std::vector<std::uint32_t> channelLength;
  for (StepIndex step = 0; step < program.size(); ++step) {
    const Step& s = program.step(step);
    const auto [it, added] = channels.try_emplace(s.channel, static_cast<std::uint32_t>(channelLength.size()));
    if (added) channelLength.push_back(0);
    ++channelLength[it->second];
    StepState& st = state(step);
    st.channel = it->second;
    st.pendingDependencies = s.dependencyCount;
    st.receiveReduce = s.kind == StepKind::ReceiveReduce;
    st.empty = s.range.count == 0;
    st.previousInStream = program.previousInStream(step);
    const auto stream = program.streamSteps(s.stream);
    st.nextInStream = static_cast<std::size_t>(s.sequence) + 1 < stream.size() ? stream[static_cast<std::size_t>(s.sequence) + 1] : -1;
    for (StepIndex dependency : program.dependenciesOf(step)) ++state(dependency + 1).dependentsBegin;
  }
  channelBegin_.assign(channelLength.size() + 1, 0);
  for (std::size_t c = 0; c < channelLength.size(); ++c) channelBegin_[c + 1] = channelBegin_[c] + channelLength[c];
  channelSteps_.resize(index(program.size()));
  std::vector<std::uint32_t> placed(channelBegin_.begin(), channelBegin_.end() - 1);
  for (StepIndex step = 0; step < program.size(); ++step) channelSteps_[placed[state(step).channel]++] = step;
  nextToPost_.assign(channelBegin_.begin(), channelBegin_.end() - 1);

  for (std::size_t i = 1; i < states_.size(); ++i) states_[i].dependentsBegin += states_[i - 1].dependentsBegin;
  dependents_.resize(program.dependencyList().size());
  std::vector<std::int32_t> filled(states_.size() - 1);
  for (std::size_t i = 0; i < filled.size(); ++i) filled[i] = states_[i].dependentsBegin;
  for (StepIndex step = 0; step < program.size(); ++step)
    for (StepIndex dependency : program.dependenciesOf(step)) dependents_[static_cast<std::size_t>(filled[index(dependency)]++)] = step;
}

void ProgramExecution::restart() {
  for (StepIndex step = 0; step < program_.size(); ++step) {
    state(step).flags = 0;
    state(step).pendingDependencies = program_.step(step).dependencyCount;
  }
  nextToPost_.assign(channelBegin_.begin(), channelBegin_.end() - 1);
  completedUnsettled_.clear();
  completedCount_ = 0;
}

void ProgramExecution::start(std::vector<Action>& actions) {
  for (std::size_t channel = 0; channel < nextToPost_.size(); ++channel) advance(channel, actions);
  settle(actions);
}

void ProgramExecution::transferred(StepIndex step, std::vector<Action>& actions) {
  state(step).flags |= kTransferred;
  if (state(step).receiveReduce) {
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
  const StepState& st = state(step);
  if (st.previousInStream >= 0 && !completed(st.previousInStream)) return false;
  return st.receiveReduce || st.pendingDependencies == 0;
}

// Posts the channel's steps in order for as long as the next one may be posted.
void ProgramExecution::advance(std::size_t channel, std::vector<Action>& actions) {
  std::uint32_t& next = nextToPost_[channel];
  const std::uint32_t end = channelBegin_[channel + 1];
  while (next < end && mayPost(channelSteps_[next])) {
    const StepIndex step = channelSteps_[next++];
    StepState& st = state(step);
    st.flags |= kPosted;
    if (st.empty) {
      st.flags |= kTransferred;
      complete(step);
    } else {
      actions.push_back({ActionKind::Post, step});
    }
  }
}

void ProgramExecution::tryReduce(StepIndex step, std::vector<Action>& actions) {
  StepState& st = state(step);
  if (!(st.flags & kTransferred) || (st.flags & (kReducing | kCompleted)) || st.pendingDependencies > 0) return;
  st.flags |= kReducing;
  actions.push_back({ActionKind::Reduce, step});
}

void ProgramExecution::complete(StepIndex step) {
  state(step).flags |= kCompleted;
  ++completedCount_;
  completedUnsettled_.push_back(step);
}

// Tells the dependents of every completed step, posting and reducing what that allows. Iterative, since a
// step of zero elements completes the moment it is posted.
void ProgramExecution::settle(std::vector<Action>& actions) {
  while (!completedUnsettled_.empty()) {
    const StepIndex step = completedUnsettled_.back();
    completedUnsettled_.pop_back();
    const StepState& st = state(step);
    if (st.nextInStream >= 0) advance(state(st.nextInStream).channel, actions);
    for (auto i = st.dependentsBegin; i < state(step + 1).dependentsBegin; ++i) {
      const StepIndex dependent = dependents_[static_cast<std::size_t>(i)];
      StepState& d = state(dependent);
      if (--d.pendingDependencies > 0) continue;
      if (d.receiveReduce) {
        tryReduce(dependent, actions);
      } else {
        advance(d.channel, actions);
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
  const StepState& st = state(step);
  if (!(st.flags & kPosted)) {
    const StepIndex next = channelSteps_[nextToPost_[st.channel]];
    if (next != step) return next;
    return st.previousInStream >= 0 && !completed(st.previousInStream) ? st.previousInStream : firstIncompleteDependency(step);
  }
  if (!(st.flags & kTransferred)) return kWaitsForPeer;
  if (!(st.flags & kReducing)) return firstIncompleteDependency(step);
  return kInProgress;
}

}  // namespace ddl
