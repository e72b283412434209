#pragma once
// A discrete-event simulation of activities sharing resources, the part of SimGrid's kernel that ddlsim's
// SimGrid engine uses, without actors: what would be an actor is a state machine told, through Listener,
// when its activities and timers end.
//
// An activity of `amount` (bytes or seconds of work) first waits its `latency`, using nothing, then
// progresses at its fair share (FairSharing) of its resources until its amount is done: SimGrid's CM02
// communication, or an execution on a host's cores. Every event of one instant is handled before the
// shares are solved again, so the ranks of a collective that end a step together cost one solve.

#include <cstdint>
#include <limits>
#include <queue>
#include <span>
#include <vector>

#include "sim/step/fluid/fair_sharing.hpp"
#include "sim/step/fluid/inline_list.hpp"

namespace ddl::fluid {

class FluidSimulation {
 public:
  using ResourceId = FairSharing::ResourceId;
  using ActivityHandle = std::int32_t;

  class Listener {
   public:
    virtual void ended(std::uint64_t tag) = 0;

   protected:
    ~Listener() = default;
  };

  ResourceId addResource(double capacity) { return sharing_.addResource(capacity); }
  // `listener->ended(tag)` is called when the activity's amount is done. `bound` < 0: none.
  ActivityHandle start(double amount, double latency, std::span<const ResourceId> resources, double weight, double bound,
                       Listener* listener, std::uint64_t tag);
  // Stops an activity that has not ended; its listener is not called.
  void cancel(ActivityHandle handle);
  // `listener->ended(tag)` at `time` (not before now).
  void at(double time, Listener* listener, std::uint64_t tag);

  double now() const { return now_; }
  // Handles events until none is left.
  void run();

 private:
  enum class State : std::uint8_t { Free, Latency, Running };
  struct Activity {
    double remaining = 0;
    double updated = 0;  // when `remaining` was last brought up to date
    double rate = 0;
    double weight = 0;
    double bound = -1;
    InlineList<ResourceId, 8> resources;  // kept until its latency is paid: one cache miss fewer than a vector
    FairSharing::ActivityId shared = -1;
    Listener* listener = nullptr;
    std::uint64_t tag = 0;
    std::uint32_t generation = 0;  // events of older generations are stale
    State state = State::Free;
  };
  enum class EventKind : std::uint8_t { LatencyPaid, Finished, Timer };
  struct Event {
    double time;
    std::uint64_t sequence;  // ties in the order they were scheduled, so that runs are reproducible
    EventKind kind;
    std::int32_t activity;  // or the timer's index
    std::uint32_t generation;
    bool operator>(const Event& other) const { return time != other.time ? time > other.time : sequence > other.sequence; }
  };
  struct Timer {
    Listener* listener;
    std::uint64_t tag;
  };

  void push(double time, EventKind kind, std::int32_t activity, std::uint32_t generation);
  void handle(const Event& event);
  void share(ActivityHandle handle);
  void rescheduleChanged();
  void release(ActivityHandle handle);

  FairSharing sharing_;
  std::vector<Activity> activities_;
  std::vector<ActivityHandle> freeActivities_;
  std::vector<ActivityHandle> ofShared_;  // FairSharing's activity -> ours
  std::vector<Timer> timers_;
  std::vector<std::int32_t> freeTimers_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<FairSharing::ActivityId> changed_;
  std::uint64_t sequence_ = 0;
  double now_ = 0;
};

}  // namespace ddl::fluid
