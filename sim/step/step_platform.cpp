#include "sim/step/step_platform.hpp"

#include <stdexcept>

#include "sim/engine/platform_constants.hpp"

namespace ddl::step {

StepPlatform::StepPlatform(const PlatformDescription& description, std::optional<RankSymmetry> symmetry)
    : description_(description), symmetry_(std::move(symmetry)) {
  hosts_.reserve(static_cast<std::size_t>(description.hosts()));
  for (Rank rank = 0; rank < description.hosts(); ++rank) hosts_.push_back(simulation_.addResource(kCoresPerGpu));
  computeHosts_.assign(static_cast<std::size_t>(description.hosts()), -1);
  reductionLooked_.assign(static_cast<std::size_t>(description.hosts()), false);
  reductionRoutes_.resize(static_cast<std::size_t>(description.hosts()));
  reductionBytesPerByte_.assign(static_cast<std::size_t>(description.hosts()), 0);
}

FluidSimulation::ResourceId StepPlatform::resourceFor(const RouteHop& hop, const PlatformLink& spec) {
  LinkResourceKey key = linkResourceKey(hop, spec);
  double share = 1;
  if (symmetry_) {
    const auto orbit = symmetry_->orbits.find(key);
    if (orbit == symmetry_->orbits.end())
      throw std::logic_error("link " + spec.name + " is crossed by a message the rank symmetry never saw");
    key = orbit->second.representative;
    share = orbit->second.capacityShare;
  }
  auto [it, added] = links_.try_emplace(key, -1);
  if (added) it->second = simulation_.addResource(simulatedBandwidth(spec.bandwidthBps) * share);
  return it->second;
}

StepRoute StepPlatform::routeOf(const std::vector<RouteHop>& hops) {
  StepRoute route;
  for (const RouteHop& hop : hops) {
    const PlatformLink spec = description_.link(hop.link);
    const double bandwidth = simulatedBandwidth(spec.bandwidthBps);
    route.latency += spec.latencySeconds;
    if (route.bound < 0 || bandwidth < route.bound) route.bound = bandwidth;
    if (spec.sharing != LinkSharing::None) route.resources.push_back(resourceFor(hop, spec));
  }
  route.weight = route.latency > 0 ? 1 / route.latency : 1;
  return route;
}

const StepRoute& StepPlatform::route(Rank from, Rank to) {
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
  auto it = routes_.find(key);
  if (it == routes_.end()) {
    it = routes_.emplace(key, routeOf(description_.route(from, to))).first;
    it->second.work = networkWorkOf(description_, from, to);
  }
  return it->second;
}

const StepRoute* StepPlatform::reductionRoute(Rank rank) {
  const auto r = static_cast<std::size_t>(rank);
  if (!reductionLooked_[r]) {
    reductionLooked_[r] = true;
    if (const std::optional<ReductionTraffic> traffic = description_.reductionTraffic(rank)) {
      reductionBytesPerByte_[r] = traffic->bytesPerReducedByte;
      reductionRoutes_[r] = routeOf(traffic->route);
    }
  }
  return reductionRoutes_[r] ? &*reductionRoutes_[r] : nullptr;
}

double StepPlatform::reductionBytesPerByte(Rank rank) const { return reductionBytesPerByte_[static_cast<std::size_t>(rank)]; }

FluidSimulation::ResourceId StepPlatform::computeHost(Rank rank) {
  // One machine's cores for every rank where the description says so (its executions are bounded by one
  // rank's speed, 1, by their callers), else a core of the rank's own.
  const std::optional<double> shared = description_.sharedComputeThroughput();
  FluidSimulation::ResourceId& host = computeHosts_[shared ? 0 : static_cast<std::size_t>(rank)];
  if (host < 0) host = simulation_.addResource(shared ? *shared : 1);
  return host;
}

}  // namespace ddl::step
