#include "algorithms/execution/schedule_run.hpp"

#include <algorithm>
#include <functional>

namespace ddl {

ScheduleRun::ScheduleRun(const std::vector<Program>& programs, const MessageMatching& matching)
    : programs_(programs), matching_(matching) {
  executions_.reserve(programs.size());
  for (const Program& program : programs) executions_.emplace_back(program);
}

bool ScheduleRun::finished() const {
  return std::all_of(executions_.begin(), executions_.end(), [](const auto& e) { return e.finished(); });
}

void ScheduleRun::schedule(double time, Rank rank, StepIndex step, bool transfer) {
  events_.push_back({time, scheduled_++, rank, step, transfer});
  std::push_heap(events_.begin(), events_.end(), std::greater<>());
}

// Carries out the actions pending in actions_ for `rank` at time `now`.
void ScheduleRun::perform(Rank rank, double now, RunObserver& observer) {
  const Program& program = programs_[static_cast<std::size_t>(rank)];
  for (const ProgramExecution::Action& action : actions_) {
    const Step& step = program.step(action.step);
    if (action.kind == ProgramExecution::ActionKind::Reduce) {
      schedule(now + observer.reduceSeconds(step), rank, action.step, false);
      continue;
    }
    const StepIndex match = matching_.counterpart(rank, action.step);
    if (!executions_[static_cast<std::size_t>(step.peer)].posted(match)) continue;  // the match starts it
    const Rank sender = step.sends() ? rank : step.peer;
    const StepIndex sendStep = step.sends() ? action.step : match;
    const Step& send = programs_[static_cast<std::size_t>(sender)].step(sendStep);
    schedule(now + observer.transferSeconds(send, sender, send.peer), sender, sendStep, true);
  }
  actions_.clear();
}

double ScheduleRun::run(RunObserver& observer) {
  double now = 0;
  for (Rank rank = 0; rank < static_cast<Rank>(executions_.size()); ++rank) {
    executions_[static_cast<std::size_t>(rank)].start(actions_);
    perform(rank, now, observer);
  }
  while (!events_.empty()) {
    std::pop_heap(events_.begin(), events_.end(), std::greater<>());
    const Event event = events_.back();
    events_.pop_back();
    now = event.time;
    if (event.transfer) {
      const Rank receiver = programs_[static_cast<std::size_t>(event.rank)].step(event.step).peer;
      const StepIndex receive = matching_.counterpart(event.rank, event.step);
      if (!observer.transferEnded(event.rank, event.step, receiver, receive)) break;
      executions_[static_cast<std::size_t>(event.rank)].transferred(event.step, actions_);
      perform(event.rank, now, observer);
      executions_[static_cast<std::size_t>(receiver)].transferred(receive, actions_);
      perform(receiver, now, observer);
    } else {
      if (!observer.reductionEnded(event.rank, event.step)) break;
      executions_[static_cast<std::size_t>(event.rank)].reduced(event.step, actions_);
      perform(event.rank, now, observer);
    }
  }
  return now;
}

}  // namespace ddl
