#include "sim/step/fluid/fluid_simulation.hpp"

#include "sim/step/fluid/free_slots.hpp"

#include <stdexcept>

namespace ddl::fluid {

FluidSimulation::ActivityHandle FluidSimulation::start(double amount, double latency, std::span<const ResourceId> resources,
                                                       double weight, double bound, Listener* listener, std::uint64_t tag) {
  const ActivityHandle handle = takeSlot(activities_, freeActivities_);
  Activity& activity = activities_[static_cast<std::size_t>(handle)];
  activity.remaining = amount;
  activity.updated = now_;
  activity.rate = 0;
  activity.weight = weight;
  activity.bound = bound;
  activity.resources.assign(resources);
  activity.shared = -1;
  activity.listener = listener;
  activity.tag = tag;
  ++activity.generation;
  if (latency > 0) {
    activity.state = State::Latency;
    push(now_ + latency, EventKind::LatencyPaid, handle, activity.generation);
  } else {
    activity.state = State::Running;
    share(handle);
  }
  return handle;
}

// Enters the sharing; with no resource and no bound it could take any rate, and ends at once, as in SimGrid.
void FluidSimulation::share(ActivityHandle handle) {
  Activity& activity = activities_[static_cast<std::size_t>(handle)];
  if ((activity.resources.empty() && !(activity.bound > 0)) || activity.remaining <= 0) {
    push(now_, EventKind::Finished, handle, activity.generation);
    return;
  }
  activity.shared = sharing_.add(activity.resources.items(), activity.weight, activity.bound);
  if (ofShared_.size() <= static_cast<std::size_t>(activity.shared)) ofShared_.resize(static_cast<std::size_t>(activity.shared) + 1, -1);
  ofShared_[static_cast<std::size_t>(activity.shared)] = handle;
}

void FluidSimulation::release(ActivityHandle handle) {
  Activity& activity = activities_[static_cast<std::size_t>(handle)];
  if (activity.shared >= 0) {
    sharing_.remove(activity.shared);
    ofShared_[static_cast<std::size_t>(activity.shared)] = -1;
    activity.shared = -1;
  }
  activity.state = State::Free;
  ++activity.generation;
  freeActivities_.push_back(handle);
}

void FluidSimulation::cancel(ActivityHandle handle) {
  if (activities_.at(static_cast<std::size_t>(handle)).state == State::Free) throw std::logic_error("cancelled an activity that had ended");
  release(handle);
}

void FluidSimulation::at(double time, Listener* listener, std::uint64_t tag) {
  const std::int32_t index = takeSlot(timers_, freeTimers_);
  timers_[static_cast<std::size_t>(index)] = {listener, tag};
  push(std::max(time, now_), EventKind::Timer, index, 0);
}

void FluidSimulation::push(double time, EventKind kind, std::int32_t activity, std::uint32_t generation) {
  events_.push({time, sequence_++, kind, activity, generation});
}

void FluidSimulation::handle(const Event& event) {
  if (event.kind == EventKind::Timer) {
    const Timer timer = timers_[static_cast<std::size_t>(event.activity)];
    freeTimers_.push_back(event.activity);
    timer.listener->ended(timer.tag);
    return;
  }
  const auto handle = static_cast<ActivityHandle>(event.activity);
  Activity& activity = activities_[static_cast<std::size_t>(handle)];
  if (activity.generation != event.generation || activity.state == State::Free) return;  // stale
  if (event.kind == EventKind::LatencyPaid) {
    activity.state = State::Running;
    activity.updated = now_;
    share(handle);
    return;
  }
  Listener* listener = activity.listener;
  const std::uint64_t tag = activity.tag;
  release(handle);
  listener->ended(tag);
}

// Brings every activity whose share changed up to date, and schedules its end at its new rate.
void FluidSimulation::rescheduleChanged() {
  for (FairSharing::ActivityId shared : changed_) {
    const ActivityHandle handle = ofShared_[static_cast<std::size_t>(shared)];
    if (handle < 0) continue;
    Activity& activity = activities_[static_cast<std::size_t>(handle)];
    activity.remaining -= activity.rate * (now_ - activity.updated);
    if (activity.remaining < 0) activity.remaining = 0;
    activity.updated = now_;
    activity.rate = sharing_.rate(shared);
    ++activity.generation;
    if (activity.rate > 0) push(now_ + activity.remaining / activity.rate, EventKind::Finished, handle, activity.generation);
  }
  changed_.clear();
}

void FluidSimulation::run() {
  // What was started before the first event shares from now on.
  sharing_.solve(changed_);
  rescheduleChanged();
  while (!events_.empty()) {
    now_ = events_.top().time;
    // Every event of this instant, including those its handlers schedule for it, before one solve.
    while (!events_.empty() && events_.top().time <= now_) {
      const Event event = events_.top();
      events_.pop();
      handle(event);
    }
    sharing_.solve(changed_);
    rescheduleChanged();
  }
}

}  // namespace ddl::fluid
