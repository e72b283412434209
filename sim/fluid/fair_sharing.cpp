#include "sim/fluid/fair_sharing.hpp"

#include "sim/fluid/free_slots.hpp"

#include <algorithm>
#include <functional>
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
  activity.resources.assign(resources.begin(), resources.end());
  activity.slots.clear();
  activity.weight = weight;
  activity.bound = bound;
  activity.rate = 0;
  activity.alive = true;
  bool everyResourceSlack = true;
  for (ResourceId r : resources) {
    Resource& resource = resources_[static_cast<std::size_t>(r)];
    activity.slots.push_back(static_cast<std::int32_t>(resource.users.size()));
    resource.users.push_back(id);
    if (bound > 0) {
      resource.boundSum += bound;
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

void FairSharing::remove(ActivityId id) {
  Activity& activity = activities_[static_cast<std::size_t>(id)];
  for (std::size_t i = 0; i < activity.resources.size(); ++i) {
    const ResourceId r = activity.resources[i];
    Resource& resource = resources_[static_cast<std::size_t>(r)];
    // A resource slack with the activity stays slack without it: it limited nobody, and frees nothing.
    if (!slack(resource)) touched_.push_back(r);
    std::vector<ActivityId>& users = resource.users;
    const std::int32_t slot = activity.slots[i];
    const std::int32_t last = static_cast<std::int32_t>(users.size()) - 1;
    const ActivityId moved = users[static_cast<std::size_t>(last)];
    users[static_cast<std::size_t>(slot)] = moved;
    users.pop_back();
    if (activity.bound > 0) {
      resource.boundSum = users.empty() ? 0 : resource.boundSum - activity.bound;  // no rounding left behind
    } else {
      --resource.unboundedUsers;
    }
    if (slot != last) {
      // The moved activity's record of where it sits in this resource (it may use a resource twice).
      Activity& other = activities_[static_cast<std::size_t>(moved)];
      for (std::size_t j = 0; j < other.resources.size(); ++j)
        if (other.resources[j] == r && other.slots[j] == last) {
          other.slots[j] = slot;
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
    fill(resources, activities, changed);
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
      for (ResourceId r : activity.resources) {
        Resource& resource = resources_[static_cast<std::size_t>(r)];
        if (resource.visited == stamp_ || slack(resource)) continue;
        resource.visited = stamp_;
        resources.push_back(r);
      }
    }
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
    for (ResourceId r : activity.resources) {
      Resource& resource = resources_[static_cast<std::size_t>(r)];
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
    for (ResourceId r : activity.resources) {
      Resource& resource = resources_[static_cast<std::size_t>(r)];
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
      push({std::max(resource.remaining, 0.0) / resource.weight, r, resource.version, false});
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
