#pragma once
// A platform description as the step engine's resources, modelled as SimulatedPlatform models it for
// SimGrid (CM02, no cross-traffic, no TCP-gamma), so that both engines share one set of equations:
//
// - a split-duplex link is one resource per direction, a link shared by both directions one resource, a
//   link without sharing no resource at all (SimGrid's FATPIPE limits each message alone, by its bound);
// - a message first waits the sum of its route's latencies, then shares its route with weight 1 / that
//   latency (CM02's sharing penalty is the route latency: weight-S is 0), or 1 where it has none, and is
//   bounded by its route's smallest bandwidth;
// - each rank's host has kCoresPerGpu cores of one second of work per second each, on which reductions run;
//   its compute host, created on demand, has one;
// - where carrying a message takes work on the machine every rank computes on, each message between nodes
//   runs that work beside it (sim/engine/network_work.hpp);
// - given a RankSymmetry (sim/step/step_symmetry.hpp), ranks 0 .. period-1 are simulated, each standing for the
//   ranks congruent to it, and a link for its orbit, with its share of the capacity.

#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "algorithms/schedule/step.hpp"
#include "sim/engine/network_work.hpp"
#include "sim/step/fluid/fluid_simulation.hpp"
#include "sim/step/step_symmetry.hpp"
#include "topologies/platform_description.hpp"

namespace ddl::step {

using fluid::FluidSimulation;

struct StepRoute {
  std::vector<FluidSimulation::ResourceId> resources;
  double latency = 0;
  double weight = 1;
  double bound = -1;
  NetworkWork work;  // what carrying its messages costs the machine the ranks compute on
};

class StepPlatform {
 public:
  explicit StepPlatform(const PlatformDescription& description, std::optional<RankSymmetry> symmetry = std::nullopt);

  FluidSimulation& simulation() { return simulation_; }
  const PlatformDescription& description() const { return description_; }
  int ranks() const { return description_.hosts(); }
  // The ranks simulated, 0 .. simulatedRanks()-1, and the one that stands for `rank`.
  int simulatedRanks() const { return symmetry_ ? symmetry_->period : ranks(); }
  Rank representative(Rank rank) const { return symmetry_ ? symmetry_->representative(rank) : rank; }

  // The route of messages from `from` to `to`, built on first use.
  const StepRoute& route(Rank from, Rank to);
  // Where rank's reductions are memory traffic: its route to the memory (else null), and the bytes per
  // byte reduced (valid once reductionRoute returned a route).
  const StepRoute* reductionRoute(Rank rank);
  double reductionBytesPerByte(Rank rank) const;
  FluidSimulation::ResourceId host(Rank rank) const { return hosts_[static_cast<std::size_t>(rank)]; }
  FluidSimulation::ResourceId computeHost(Rank rank);

 private:
  StepRoute routeOf(const std::vector<RouteHop>& hops);
  FluidSimulation::ResourceId resourceFor(const RouteHop& hop, const PlatformLink& spec);

  const PlatformDescription& description_;
  std::optional<RankSymmetry> symmetry_;
  FluidSimulation simulation_;
  std::vector<FluidSimulation::ResourceId> hosts_;
  std::vector<FluidSimulation::ResourceId> computeHosts_;
  std::unordered_map<std::uint64_t, StepRoute> routes_;
  std::map<LinkResourceKey, FluidSimulation::ResourceId> links_;
  std::vector<bool> reductionLooked_;
  std::vector<std::optional<StepRoute>> reductionRoutes_;
  std::vector<double> reductionBytesPerByte_;
};

}  // namespace ddl::step
