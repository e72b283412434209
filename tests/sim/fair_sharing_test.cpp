// FairSharing against the definition of weighted max-min fairness, computed here the slow way: raise one
// level λ for every unfixed activity (rate λ·w), stop at the first resource that fills or bound that is
// reached, fix what it limits, go on. On random systems of resources and activities, with bounds, slack
// resources, routes through a resource twice, activities alone in their component and activities that come
// and go, the incremental solver gives the same rates.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "sim/step/fluid/fair_sharing.hpp"

namespace ddl {
namespace {

using fluid::FairSharing;

struct Activity {
  std::vector<int> resources;
  double weight;
  double bound;  // < 0: none
};

// Progressive filling by its definition, over every activity at once.
std::vector<double> maxMinRates(const std::vector<double>& capacity, const std::vector<Activity>& activities) {
  std::vector<double> rate(activities.size(), 0);
  std::vector<bool> fixed(activities.size(), false);
  std::vector<double> remaining = capacity;
  for (std::size_t round = 0; round < activities.size(); ++round) {
    double level = std::numeric_limits<double>::infinity();
    for (std::size_t r = 0; r < capacity.size(); ++r) {
      double weight = 0;
      for (std::size_t a = 0; a < activities.size(); ++a)
        if (!fixed[a]) weight += activities[a].weight * static_cast<double>(std::count(activities[a].resources.begin(), activities[a].resources.end(), static_cast<int>(r)));
      if (weight > 0) level = std::min(level, remaining[r] / weight);
    }
    for (std::size_t a = 0; a < activities.size(); ++a)
      if (!fixed[a] && activities[a].bound > 0) level = std::min(level, activities[a].bound / activities[a].weight);
    if (!std::isfinite(level)) break;
    // Fix every activity limited at this level: by its bound, or through a resource it fills.
    std::vector<std::size_t> limited;
    for (std::size_t a = 0; a < activities.size(); ++a) {
      if (fixed[a]) continue;
      bool atLimit = activities[a].bound > 0 && activities[a].bound / activities[a].weight <= level * (1 + 1e-12);
      for (int r : activities[a].resources) {
        double weight = 0;
        for (std::size_t b = 0; b < activities.size(); ++b)
          if (!fixed[b]) weight += activities[b].weight * static_cast<double>(std::count(activities[b].resources.begin(), activities[b].resources.end(), r));
        if (remaining[static_cast<std::size_t>(r)] / weight <= level * (1 + 1e-12)) atLimit = true;
      }
      if (atLimit) limited.push_back(a);
    }
    for (std::size_t a : limited) {
      fixed[a] = true;
      rate[a] = activities[a].bound > 0 ? std::min(level * activities[a].weight, activities[a].bound) : level * activities[a].weight;
      for (int r : activities[a].resources) remaining[static_cast<std::size_t>(r)] -= rate[a];
    }
  }
  return rate;
}

TEST(FairSharing, GivesTheWeightedMaxMinRatesOfRandomSystemsAsActivitiesComeAndGo) {
  std::mt19937_64 random(20261202);
  for (int trial = 0; trial < 200; ++trial) {
    const int resources = 1 + static_cast<int>(random() % 8);
    std::vector<double> capacity;
    FairSharing sharing;
    for (int r = 0; r < resources; ++r) {
      // Some so large that no set of bounds fills them: slack, which the solver must see through.
      capacity.push_back(random() % 4 == 0 ? 1e6 : 1 + static_cast<double>(random() % 100));
      sharing.addResource(capacity.back());
    }
    std::map<FairSharing::ActivityId, Activity> alive;
    std::map<FairSharing::ActivityId, double> rateBefore;
    std::vector<FairSharing::ActivityId> changed;
    for (int event = 0; event < 12; ++event) {
      if (!alive.empty() && random() % 3 == 0) {
        auto it = std::next(alive.begin(), static_cast<long>(random() % alive.size()));
        sharing.remove(it->first);
        alive.erase(it);
      } else {
        Activity activity;
        // Now and then a route longer than an activity keeps inline.
        const int uses = random() % 8 == 0 ? 9 + static_cast<int>(random() % 4) : 1 + static_cast<int>(random() % 3);
        for (int i = 0; i < uses; ++i) activity.resources.push_back(static_cast<int>(random() % static_cast<unsigned>(resources)));
        activity.weight = random() % 2 ? 1 : 0.25 + static_cast<double>(random() % 8);
        activity.bound = random() % 3 == 0 ? -1 : 0.5 + static_cast<double>(random() % 50);
        alive[sharing.add(activity.resources, activity.weight, activity.bound)] = activity;
      }
      changed.clear();
      sharing.solve(changed);
      // Every activity whose rate moved is reported, or the simulation above would keep its old end.
      for (const auto& [id, activity] : alive) {
        const auto before = rateBefore.find(id);
        if (before == rateBefore.end() || before->second != sharing.rate(id)) {
          EXPECT_NE(std::find(changed.begin(), changed.end(), id), changed.end()) << "trial " << trial << ", event " << event;
        }
      }
      rateBefore.clear();
      for (const auto& [id, activity] : alive) rateBefore[id] = sharing.rate(id);
      std::vector<Activity> listed;
      for (const auto& [id, activity] : alive) listed.push_back(activity);
      const std::vector<double> expected = maxMinRates(capacity, listed);
      std::size_t i = 0;
      for (const auto& [id, activity] : alive) {
        EXPECT_NEAR(sharing.rate(id), expected[i], 1e-9 * std::max(1.0, expected[i])) << "trial " << trial << ", event " << event;
        ++i;
      }
    }
  }
}

// 32 EDR ports under a switch sized for them (400 GB/s), each port carrying `messagesPerPort` messages
// bounded by the port's speed: the messages in port order, each port's together.
constexpr int kPorts = 32;
constexpr double kPort = 12.5e9;
struct PortsUnderASwitch {
  FairSharing::ResourceId uplink;
  std::vector<FairSharing::ResourceId> ports;
  std::vector<FairSharing::ActivityId> messages;
};
PortsUnderASwitch portsUnderASwitch(FairSharing& sharing, int messagesPerPort) {
  PortsUnderASwitch built;
  built.uplink = sharing.addResource(kPorts * kPort);
  for (int port = 0; port < kPorts; ++port) {
    built.ports.push_back(sharing.addResource(kPort));
    const FairSharing::ResourceId route[] = {built.ports.back(), built.uplink};
    for (int message = 0; message < messagesPerPort; ++message) built.messages.push_back(sharing.add(route, 1, kPort));
  }
  return built;
}

// A non-blocking switch is sized for its ports: its users' bounds fill it exactly. It limits nobody, so a
// change at one port moves only the rates that port's users share.
TEST(FairSharing, ASwitchItsPortsFillExactlyLimitsNobody) {
  FairSharing sharing;
  const auto [leaf, nics, messages] = portsUnderASwitch(sharing, 1);
  std::vector<FairSharing::ActivityId> changed;
  sharing.solve(changed);
  for (FairSharing::ActivityId message : messages) EXPECT_DOUBLE_EQ(sharing.rate(message), kPort);
  EXPECT_EQ(sharing.activitiesSolved(), 0) << "each alone on slack resources takes its bound without a solve";

  // A second message through port 0: the two there halve, and nobody else moves, or is even looked at.
  const FairSharing::ResourceId route[] = {nics[0], leaf};
  const FairSharing::ActivityId second = sharing.add(route, 1, kPort);
  changed.clear();
  sharing.solve(changed);
  EXPECT_EQ(sharing.activitiesSolved(), 2);
  EXPECT_DOUBLE_EQ(sharing.rate(messages[0]), kPort / 2);
  EXPECT_DOUBLE_EQ(sharing.rate(second), kPort / 2);
  for (int port = 1; port < kPorts; ++port) EXPECT_DOUBLE_EQ(sharing.rate(messages[static_cast<std::size_t>(port)]), kPort);
  std::sort(changed.begin(), changed.end());
  EXPECT_EQ(changed, (std::vector<FairSharing::ActivityId>{messages[0], second}));

  // It leaves: the first has the port to itself again.
  sharing.remove(second);
  changed.clear();
  sharing.solve(changed);
  EXPECT_DOUBLE_EQ(sharing.rate(messages[0]), kPort);
  EXPECT_EQ(changed, (std::vector<FairSharing::ActivityId>{messages[0]}));
  EXPECT_EQ(sharing.activitiesSolved(), 3);
}

// Two GPUs share each port under an uplink sized for the ports (Minsky: 32 EDR ports, 400 GB/s): the
// messages' bounds add up to twice the uplink, but what they can put through it is the ports' capacity, so
// the uplink still limits nobody and a change at one port moves that port's messages only.
TEST(FairSharing, AnUplinkItsPortsFillExactlyLimitsNobodyHoweverManyShareEachPort) {
  FairSharing sharing;
  const std::vector<FairSharing::ActivityId> messages = portsUnderASwitch(sharing, 2).messages;
  std::vector<FairSharing::ActivityId> changed;
  sharing.solve(changed);
  for (FairSharing::ActivityId message : messages) EXPECT_DOUBLE_EQ(sharing.rate(message), kPort / 2);

  // Port 0's second message ends: its first takes the whole port, and nobody else's rate is even looked at.
  sharing.remove(messages[1]);
  changed.clear();
  const std::int64_t solvedBefore = sharing.activitiesSolved();
  sharing.solve(changed);
  EXPECT_DOUBLE_EQ(sharing.rate(messages[0]), kPort);
  EXPECT_EQ(changed, (std::vector<FairSharing::ActivityId>{messages[0]}));
  EXPECT_EQ(sharing.activitiesSolved() - solvedBefore, 1);
  for (std::size_t m = 2; m < messages.size(); ++m) EXPECT_DOUBLE_EQ(sharing.rate(messages[m]), kPort / 2);
}

// A resource is bounded by a tighter one only if that one is strictly tighter: two links of one capacity
// on one route, each looking slack on the other's account, would let a message through at its bound.
TEST(FairSharing, LinksOfOneCapacityDoNotVouchForEachOther) {
  FairSharing sharing;
  const FairSharing::ResourceId first = sharing.addResource(10);
  const FairSharing::ResourceId second = sharing.addResource(10);
  const FairSharing::ResourceId route[] = {first, second};
  const FairSharing::ActivityId message = sharing.add(route, 1, 12.5);
  std::vector<FairSharing::ActivityId> changed;
  sharing.solve(changed);
  EXPECT_DOUBLE_EQ(sharing.rate(message), 10);
}

TEST(FairSharing, RefusesWhatHasNoRate) {
  FairSharing sharing;
  EXPECT_THROW(sharing.addResource(0), std::invalid_argument);
  const FairSharing::ResourceId link = sharing.addResource(1);
  const FairSharing::ResourceId links[] = {link};
  EXPECT_THROW(sharing.add(links, 0, -1), std::invalid_argument);
  EXPECT_THROW(sharing.add({}, 1, -1), std::invalid_argument);
}

}  // namespace
}  // namespace ddl
