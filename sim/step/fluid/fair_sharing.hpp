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
// A resource that its users together cannot overfill is slack: it never limits anyone, so the solve
// neither couples its users through it nor looks at it (a PCIe link under one NIC's messages, a leaf
// switch sized for its ports). That changes no rate, only what is solved together; and an activity that
// comes or goes on slack resources alone moves nobody's rate, so it is solved without a component.
//
// What the users can put through a resource is bounded group by group: the users that also cross one
// tighter resource (of smaller capacity) put through at most its capacity, however many they are and
// whatever their bounds; the others at most their bounds. Two GPUs' messages share each EDR port below a
// leaf uplink sized for its 32 ports: their bounds add up to twice the uplink, their ports to exactly it.
// Counting bounds alone coupled every message of a leaf into one component, solved again each time one of
// them ended. A tighter resource is tighter by capacity, strictly, so no two resources are slack on each
// other's account: the smallest of a chain is bounded by its users' bounds alone.

#include <cstdint>
#include <span>
#include <vector>

#include "sim/step/fluid/inline_list.hpp"

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
  // How many activities the solves have filled so far, counted once per component they were in: what
  // the coupling costs, for tests and benchmarks.
  std::int64_t activitiesSolved() const { return activitiesSolved_; }

 private:
  static constexpr ResourceId kNoTighter = -1;
  static constexpr std::int32_t kNoFeeder = -1;
  // Filled to the brim within this counts as slack (see slack()).
  static constexpr double kBrim = 1e-12;
  // The users of a resource that cross one tighter resource `through` (or none: kNoTighter): how many,
  // and the sum of their bounds.
  struct Feeder {
    ResourceId through;
    std::int32_t users;
    double limit;     // through's capacity, or infinity
    double boundSum;
    double most;      // what they can put through: min(boundSum, limit)
  };
  // What every add and remove reads (whether it is slack, and its users) in its first cache line, the
  // solve's scratch and the feeders after: at thousands of ranks the resources do not stay in cache, and
  // with these fields spread over three lines each add and remove paid for up to three misses per resource.
  struct alignas(64) Resource {
    double capacity = 0;
    double boundSum = 0;  // of the users with a bound
    double feed = 0;  // the most the users with a bound can put through: the sum of the feeders' most
    std::vector<ActivityId> users;
    std::int32_t unboundedUsers = 0;
    bool grouped = false;
    // Scratch of a solve.
    std::uint32_t visited = 0;
    double remaining = 0;
    double weight = 0;  // the unfixed users' total
    std::int32_t unfixed = 0;
    std::uint32_t version = 0;
    // In the order they appeared, so that a use keeps its feeder's index; found by `through` in
    // feederTable (open addressing, -1 empty) once they are too many to scan.
    // Kept only once the users' bounds alone first overfill it (`grouped`, from then on): elsewhere they
    // cost each message's start and end a lookup per resource for nothing (halving-doubling on 16,384 DGX
    // H100 GPUs, one NIC per GPU: a fifth slower when every resource kept them).
    std::vector<Feeder> feeders;
    std::vector<std::int32_t> feederTable;
  };
  struct Use {
    ResourceId resource;
    std::int32_t slot;   // the activity's place in the resource's users
    std::int32_t feeder;  // the index of the feeder it counts in, once the resource is grouped
  };
  struct Activity {
    // Inline up to 8 (a message's route across a fat tree fits): every solve and remove reads them for
    // each activity it meets (perf of the 4096-GPU iteration: remove's time went on misses to a separate
    // allocation).
    InlineList<Use, 8> uses;
    double weight = 0;
    double bound = -1;
    double rate = 0;
    bool alive = false;
    // Scratch of a solve.
    bool fixed = false;
    std::uint32_t visited = 0;
  };

  bool slack(const Resource& resource) const {
    // Filled to the brim counts as slack: its users then fill it exactly and it still limits nobody.
    // That is the common case, not an edge: a non-blocking switch is sized for its ports (32 EDR NICs under
    // a 400 GB/s leaf), and counting it as a bottleneck coupled every message of a rack into one component.
    // The margin covers the sums' rounding; the rates it lets through exceed the capacity by at most kBrim.
    return resource.unboundedUsers == 0 && (resource.grouped ? resource.feed : resource.boundSum) <= resource.capacity * (1 + kBrim);
  }
  double capacity(ResourceId r) const { return resources_[static_cast<std::size_t>(r)].capacity; }
  ResourceId tightestOf(std::span<const Use> uses) const;
  ResourceId tighterThan(ResourceId tightest, ResourceId r) const;
  void group(ResourceId r);
  std::int32_t feederOf(Resource& resource, ResourceId through);
  void feed(Resource& resource, std::int32_t feeder, double bound);
  void component(std::vector<ResourceId>& resources, std::vector<ActivityId>& activities);
  void fillAlone(ActivityId activity, std::vector<ActivityId>& changed);
  void fill(const std::vector<ResourceId>& resources, const std::vector<ActivityId>& activities, std::vector<ActivityId>& changed);

  std::vector<Resource> resources_;
  std::vector<Activity> activities_;
  std::vector<ActivityId> freeActivities_;
  std::vector<ResourceId> touched_;
  std::vector<ActivityId> unconstrained_;  // added with no resource, or only slack ones: their rate is their bound
  std::uint32_t stamp_ = 0;
  std::int64_t activitiesSolved_ = 0;
};

}  // namespace ddl::fluid
