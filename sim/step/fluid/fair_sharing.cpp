#include "sim/step/fluid/fair_sharing.hpp"

#include "sim/step/fluid/free_slots.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>

namespace ddl::fluid {
namespace {

// A candidate level of the filling: a resource that would be full at `level`, or an activity that would
// reach its bound there. Entries go stale when what they describe changes; `version` tells.
struct Candidate {
  double level;
  std::int32_t id;
  std::uint32_t version;
  bool activity;
  bool operator>(const Candidate& other) const { return level > other.level; }
};

}  // namespace

FairSharing::ResourceId FairSharing::addResource(double capacity) {
  if (!(capacity > 0)) throw std::invalid_argument("a shared resource needs a positive capacity");
  resources_.push_back({});
  resources_.back().capacity = capacity;
  return static_cast<ResourceId>(resources_.size() - 1);
}

FairSharing::ActivityId FairSharing::add(std::span<const ResourceId> resources, double weight, double bound) {
  if (!(weight > 0)) throw std::invalid_argument("a sharing activity needs a positive weight");
  if (resources.empty() && !(bound > 0)) throw std::invalid_argument("an activity using no resource needs a bound");
  const ActivityId id = takeSlot(activities_, freeActivities_);
  Activity& activity = activities_[static_cast<std::size_t>(id)];
  activity.uses.resize(resources.size());
  const std::span<Use> uses = activity.uses.items();
  activity.weight = weight;
  activity.bound = bound;
  activity.rate = 0;
  activity.alive = true;
  bool everyResourceSlack = true;
  std::optional<ResourceId> tightest;  // found when a grouped resource first asks
  // Slot -1 until the use joins its resource's users: group() may look at this activity midway, and must
  // not take a later use of the same resource for the one it found there.
  for (std::size_t i = 0; i < resources.size(); ++i) uses[i] = {resources[i], -1, kNoFeeder};
  for (std::size_t i = 0; i < uses.size(); ++i) {
    Use& use = uses[i];
    Resource& resource = resources_[static_cast<std::size_t>(use.resource)];
    use.slot = static_cast<std::int32_t>(resource.users.size());
    resource.users.push_back(id);
    if (bound > 0) {
      resource.boundSum += bound;
      if (resource.grouped) {
        if (!tightest) tightest = tightestOf(uses);
        use.feeder = feederOf(resource, tighterThan(*tightest, use.resource));
        feed(resource, use.feeder, bound);
      } else if (resource.boundSum > resource.capacity * (1 + kBrim)) {
        group(use.resource);
      }
    } else {
      ++resource.unboundedUsers;
    }
    everyResourceSlack = everyResourceSlack && slack(resource);
  }
  // Resources still slack with it were slack before it: it runs at its bound and nobody's rate moves, so
  // there is nothing to solve (a reduction on its host's many cores, a message alone below its links).
  if (everyResourceSlack) {
    unconstrained_.push_back(id);
  } else {
    // Only what it fills can move anyone's rate: its slack resources still limit nobody.
    for (ResourceId r : resources)
      if (!slack(resources_[static_cast<std::size_t>(r)])) touched_.push_back(r);
  }
  return id;
}

// The resource of smallest capacity the activity crosses (ties to the lowest id), or kNoTighter if it crosses
// one twice: it may then put twice its rate through that one, and no resource bounds what it puts through
// another. Computed once per activity, not once per use: perf of the 4096-GPU iteration had the per-use
// search at a twentieth of the time.
FairSharing::ResourceId FairSharing::tightestOf(std::span<const Use> uses) const {
  ResourceId tightest = kNoTighter;
  for (std::size_t a = 0; a < uses.size(); ++a) {
    const ResourceId r = uses[a].resource;
    for (std::size_t b = a + 1; b < uses.size(); ++b)
      if (uses[b].resource == r) return kNoTighter;
    if (tightest == kNoTighter || capacity(r) < capacity(tightest) || (capacity(r) == capacity(tightest) && r < tightest)) tightest = r;
  }
  return tightest;
}

// What bounds the activity's throughput on `r` besides its own bound: its tightest resource, if smaller than
// `r` (and then not `r` itself), or kNoTighter.
FairSharing::ResourceId FairSharing::tighterThan(ResourceId tightest, ResourceId r) const {
  return tightest != kNoTighter && capacity(tightest) < capacity(r) ? tightest : kNoTighter;
}

// From now on, the users of `r` with a bound count by feeder: their bounds alone overfill it.
void FairSharing::group(ResourceId r) {
  Resource& resource = resources_[static_cast<std::size_t>(r)];
  resource.grouped = true;
  for (std::size_t slot = 0; slot < resource.users.size(); ++slot) {
    Activity& user = activities_[static_cast<std::size_t>(resource.users[slot])];
    if (!(user.bound > 0)) continue;
    const std::span<Use> uses = user.uses.items();
    for (std::size_t i = 0; i < uses.size(); ++i)
      if (uses[i].resource == r && uses[i].slot == static_cast<std::int32_t>(slot)) {
        uses[i].feeder = feederOf(resource, tighterThan(tightestOf(uses), r));
        feed(resource, uses[i].feeder, user.bound);
      }
  }
}

// The index of the feeder of `resource` through `through`, made if it has none.
std::int32_t FairSharing::feederOf(Resource& resource, ResourceId through) {
  // A few feeders are scanned faster than hashed: a NIC's link has one, a leaf's uplink one per port.
  constexpr std::size_t kScanned = 4;
  std::vector<Feeder>& feeders = resource.feeders;
  std::vector<std::int32_t>& table = resource.feederTable;
  auto make = [&] {
    feeders.push_back({through, 0, through == kNoTighter ? std::numeric_limits<double>::infinity()
                                                         : resources_[static_cast<std::size_t>(through)].capacity, 0, 0});
    return static_cast<std::int32_t>(feeders.size() - 1);
  };
  if (table.empty()) {
    for (std::size_t f = 0; f < feeders.size(); ++f)
      if (feeders[f].through == through) return static_cast<std::int32_t>(f);
    if (feeders.size() < kScanned) return make();
  }
  // Kept at most half full; grown, it is filled again from the feeders.
  if (table.size() < 2 * (feeders.size() + 1)) {
    table.assign(std::max<std::size_t>(16, 2 * table.size()), -1);
    for (std::size_t f = 0; f < feeders.size(); ++f) {
      std::size_t slot = std::hash<ResourceId>{}(feeders[f].through) * 0x9E3779B97F4A7C15ull >> 32 & (table.size() - 1);
      while (table[slot] >= 0) slot = (slot + 1) & (table.size() - 1);
      table[slot] = static_cast<std::int32_t>(f);
    }
  }
  std::size_t slot = std::hash<ResourceId>{}(through) * 0x9E3779B97F4A7C15ull >> 32 & (table.size() - 1);
  for (; table[slot] >= 0; slot = (slot + 1) & (table.size() - 1))
    if (feeders[static_cast<std::size_t>(table[slot])].through == through) return table[slot];
  table[slot] = make();
  return table[slot];
}

// Adds a user of `bound` (removes one, if negative) to a feeder of `resource`, and updates its feed.
void FairSharing::feed(Resource& resource, std::int32_t index, double bound) {
  Feeder& feeder = resource.feeders[static_cast<std::size_t>(index)];
  resource.feed -= feeder.most;
  feeder.users += bound > 0 ? 1 : -1;
  feeder.boundSum = feeder.users == 0 ? 0 : feeder.boundSum + bound;  // no rounding left behind
  feeder.most = std::min(feeder.boundSum, feeder.limit);
  resource.feed += feeder.most;
}

void FairSharing::remove(ActivityId id) {
  Activity& activity = activities_[static_cast<std::size_t>(id)];
  for (const Use& use : activity.uses.items()) {
    const ResourceId r = use.resource;
    Resource& resource = resources_[static_cast<std::size_t>(r)];
    // A resource slack with the activity stays slack without it: it limited nobody, and frees nothing.
    if (!slack(resource)) touched_.push_back(r);
    std::vector<ActivityId>& users = resource.users;
    const std::int32_t slot = use.slot;
    const std::int32_t last = static_cast<std::int32_t>(users.size()) - 1;
    const ActivityId moved = users[static_cast<std::size_t>(last)];
    users[static_cast<std::size_t>(slot)] = moved;
    users.pop_back();
    if (activity.bound > 0) {
      // No rounding left behind once it is empty.
      resource.boundSum = users.empty() ? 0 : resource.boundSum - activity.bound;
      if (resource.grouped) {
        feed(resource, use.feeder, -activity.bound);
        if (users.empty()) resource.feed = 0;
      }
    } else {
      --resource.unboundedUsers;
    }
    if (slot != last) {
      // The moved activity's record of where it sits in this resource (it may use a resource twice).
      for (Use& other : activities_[static_cast<std::size_t>(moved)].uses.items())
        if (other.resource == r && other.slot == last) {
          other.slot = slot;
          break;
        }
    }
  }
  activity.alive = false;
  activity.rate = 0;
  freeActivities_.push_back(id);
}

void FairSharing::solve(std::vector<ActivityId>& changed) {
  for (ActivityId id : unconstrained_) {
    Activity& activity = activities_[static_cast<std::size_t>(id)];
    if (activity.alive && activity.rate != activity.bound) {
      activity.rate = activity.bound;
      changed.push_back(id);
    }
  }
  unconstrained_.clear();
  ++stamp_;
  std::vector<ResourceId> resources;
  std::vector<ActivityId> activities;
  for (ResourceId r : touched_) {
    const Resource& start = resources_[static_cast<std::size_t>(r)];
    if (start.visited == stamp_ || start.users.empty()) continue;  // emptied: nobody left to share it
    resources.assign(1, r);
    activities.clear();
    component(resources, activities);
    activitiesSolved_ += static_cast<std::int64_t>(activities.size());
    if (activities.size() == 1) {
      fillAlone(activities.front(), changed);
    } else {
      fill(resources, activities, changed);
    }
  }
  touched_.clear();
}

// Everything connected to resources.front() through shared resources: the resources, then the activities.
void FairSharing::component(std::vector<ResourceId>& resources, std::vector<ActivityId>& activities) {
  resources_[static_cast<std::size_t>(resources.front())].visited = stamp_;
  for (std::size_t next = 0; next < resources.size(); ++next) {
    for (ActivityId id : resources_[static_cast<std::size_t>(resources[next])].users) {
      Activity& activity = activities_[static_cast<std::size_t>(id)];
      if (activity.visited == stamp_) continue;
      activity.visited = stamp_;
      activities.push_back(id);
      for (const Use& use : activity.uses.items()) {
        const ResourceId r = use.resource;
        Resource& resource = resources_[static_cast<std::size_t>(r)];
        if (resource.visited == stamp_ || slack(resource)) continue;
        resource.visited = stamp_;
        resources.push_back(r);
      }
    }
  }
}

// The filling of a component of one activity, which ends at its first limit: no heap, no scratch. Most
// components are one activity (1.1 of 1.7 million in the 4096-GPU iteration: a message left alone on its
// NIC when its neighbour ends), and fill's setup cost more than their solve. Same rates as fill, a tie
// going to the bound.
void FairSharing::fillAlone(ActivityId id, std::vector<ActivityId>& changed) {
  Activity& activity = activities_[static_cast<std::size_t>(id)];
  const std::span<const Use> uses = activity.uses.items();
  bool bounded = activity.bound > 0;
  double level = bounded ? activity.bound / activity.weight : std::numeric_limits<double>::infinity();
  for (const Use& use : uses) {
    const Resource& resource = resources_[static_cast<std::size_t>(use.resource)];
    if (slack(resource)) continue;
    // A route through a resource twice weighs on it twice, as fill sums its users' weights.
    double weight = 0;
    for (const Use& other : uses)
      if (other.resource == use.resource) weight += activity.weight;
    const double full = resource.capacity / weight;
    if (full < level) {
      level = full;
      bounded = false;
    }
  }
  const double rate = bounded ? activity.bound : level * activity.weight;
  activity.fixed = true;
  if (rate != activity.rate) {
    activity.rate = rate;
    changed.push_back(id);
  }
}

// Progressive filling of one component.
void FairSharing::fill(const std::vector<ResourceId>& resources, const std::vector<ActivityId>& activities,
                       std::vector<ActivityId>& changed) {
  // A min-heap, its storage kept from one fill to the next: there are millions, most of a few activities.
  static thread_local std::vector<Candidate> candidates;
  candidates.clear();
  auto push = [](const Candidate& candidate) {
    candidates.push_back(candidate);
    std::push_heap(candidates.begin(), candidates.end(), std::greater<>{});
  };
  for (ResourceId r : resources) {
    Resource& resource = resources_[static_cast<std::size_t>(r)];
    if (slack(resource)) continue;
    resource.remaining = resource.capacity;
    resource.weight = 0;
    resource.unfixed = 0;
    ++resource.version;
  }
  for (ActivityId id : activities) {
    Activity& activity = activities_[static_cast<std::size_t>(id)];
    activity.fixed = false;
    for (const Use& use : activity.uses.items()) {
      Resource& resource = resources_[static_cast<std::size_t>(use.resource)];
      if (slack(resource)) continue;
      resource.weight += activity.weight;
      ++resource.unfixed;
    }
    if (activity.bound > 0) push({activity.bound / activity.weight, id, 0, true});
  }
  for (ResourceId r : resources) {
    const Resource& resource = resources_[static_cast<std::size_t>(r)];
    if (!slack(resource) && resource.unfixed > 0) push({resource.remaining / resource.weight, r, resource.version, false});
  }

  auto fix = [&](ActivityId id, double rate) {
    Activity& activity = activities_[static_cast<std::size_t>(id)];
    activity.fixed = true;
    if (rate != activity.rate) {
      activity.rate = rate;
      changed.push_back(id);
    }
    for (const Use& use : activity.uses.items()) {
      Resource& resource = resources_[static_cast<std::size_t>(use.resource)];
      if (slack(resource)) continue;
      resource.remaining -= rate;
      resource.weight -= activity.weight;
      --resource.unfixed;
      ++resource.version;
      if (resource.unfixed == 0) continue;
      if (!(resource.weight > 0)) {  // rounding: sum the unfixed users' weights afresh
        resource.weight = 0;
        for (ActivityId user : resource.users)
          if (!activities_[static_cast<std::size_t>(user)].fixed) resource.weight += activities_[static_cast<std::size_t>(user)].weight;
      }
      push({std::max(resource.remaining, 0.0) / resource.weight, use.resource, resource.version, false});
    }
  };

  while (!candidates.empty()) {
    std::pop_heap(candidates.begin(), candidates.end(), std::greater<>{});
    const Candidate candidate = candidates.back();
    candidates.pop_back();
    if (candidate.activity) {
      if (!activities_[static_cast<std::size_t>(candidate.id)].fixed)
        fix(candidate.id, activities_[static_cast<std::size_t>(candidate.id)].bound);
      continue;
    }
    Resource& resource = resources_[static_cast<std::size_t>(candidate.id)];
    if (candidate.version != resource.version || resource.unfixed == 0) continue;
    const double level = candidate.level;
    // Fixing a user changes this resource's users' places in no list: users is only read here.
    for (std::size_t i = 0; i < resource.users.size(); ++i) {
      const ActivityId id = resource.users[i];
      Activity& activity = activities_[static_cast<std::size_t>(id)];
      if (!activity.fixed) fix(id, level * activity.weight);
    }
  }
}

}  // namespace ddl::fluid
