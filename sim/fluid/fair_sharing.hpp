#pragma once
// Max-min fair sharing of resources among the activities that use them, computed as SimGrid's LMM "maxmin"
// solver computes it, so that the step engine and the SimGrid engine give one answer:
//
// - an activity of weight w using resources R gets the rate λ·w, raised for every activity together until
//   a resource is full (the sum of its users' rates reaches its capacity) or the activity reaches its bound;
//   the activities of that resource are fixed there, and the others go on rising;
// - a resource couples only the activities that use it, so a change re-solves only the activities connected
//   to it through shared resources (SimGrid's selective update), not the whole platform.
//
// In SimGrid terms the weight is 1 / the variable's sharing penalty and every consumption weight is 1.
//
// A resource that all its users' bounds together cannot overfill is slack: it never limits anyone, so the
// solve neither couples its users through it nor looks at it (a PCIe link under one NIC's messages, a leaf
// switch sized for its ports). That changes no rate, only what is solved together; and an activity that
// comes or goes on slack resources alone moves nobody's rate, so it is solved without a component.

#include <cstdint>
#include <span>
#include <vector>

namespace ddl::fluid {

class FairSharing {
 public:
  using ResourceId = std::int32_t;
  using ActivityId = std::int32_t;

  ResourceId addResource(double capacity);
  // `bound` < 0: none. An activity with no resources runs at its bound (which it must then have).
  ActivityId add(std::span<const ResourceId> resources, double weight, double bound);
  void remove(ActivityId activity);
  double rate(ActivityId activity) const { return activities_[static_cast<std::size_t>(activity)].rate; }

  // Re-solves what add and remove touched since the last call, and appends each activity whose rate changed.
  void solve(std::vector<ActivityId>& changed);

 private:
  struct Resource {
    double capacity = 0;
    std::vector<ActivityId> users;
    double boundSum = 0;            // of the users with a bound
    std::int32_t unboundedUsers = 0;
    // Scratch of a solve.
    double remaining = 0;
    double weight = 0;  // the unfixed users' total
    std::int32_t unfixed = 0;
    std::uint32_t version = 0;
    std::uint32_t visited = 0;
  };
  struct Activity {
    std::vector<ResourceId> resources;
    std::vector<std::int32_t> slots;  // its place in each resource's users
    double weight = 0;
    double bound = -1;
    double rate = 0;
    bool alive = false;
    // Scratch of a solve.
    bool fixed = false;
    std::uint32_t visited = 0;
  };

  bool slack(const Resource& resource) const {
    // Filled to the brim counts as slack: the users' bounds then fill it exactly and it still limits nobody.
    // That is the common case, not an edge: a non-blocking switch is sized for its ports (32 EDR NICs under
    // a 400 GB/s leaf), and counting it as a bottleneck coupled every message of a rack into one component.
    // The margin covers boundSum's rounding; the rates it lets through exceed the capacity by at most 1e-12.
    return resource.unboundedUsers == 0 && resource.boundSum <= resource.capacity * (1 + 1e-12);
  }
  void component(std::vector<ResourceId>& resources, std::vector<ActivityId>& activities);
  void fill(const std::vector<ResourceId>& resources, const std::vector<ActivityId>& activities, std::vector<ActivityId>& changed);

  std::vector<Resource> resources_;
  std::vector<Activity> activities_;
  std::vector<ActivityId> freeActivities_;
  std::vector<ResourceId> touched_;
  std::vector<ActivityId> unconstrained_;  // added with no resource, or only slack ones: their rate is their bound
  std::uint32_t stamp_ = 0;
};

}  // namespace ddl::fluid
