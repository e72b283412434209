#include "sim/simgrid/simulated_platform.hpp"

#include "sim/engine/platform_constants.hpp"
#include "sim/simgrid/network_model.hpp"

#include <xbt/log.h>

namespace ddl {
namespace sg4 = simgrid::s4u;

namespace {

// Set by SimGrid when the actors still running all wait for each other; cleared before each run.
bool deadlockDetected = false;

void configureSimGridOnce() {
  static bool configured = false;
  if (configured) return;
  configured = true;
  sg4::Engine::on_deadlock_cb([] { deadlockDetected = true; });
  // ddlsim reports what goes wrong itself, in its own words.
  xbt_log_control_set("root.thresh:critical");
  xbt_log_control_set("root.app:file:/dev/null");
  for (const SimGridSetting& setting : kNetworkModel)
    sg4::Engine::set_config(std::string(setting.name) + ":" + setting.value);
}

}  // namespace

std::unique_ptr<sg4::Engine> SimulatedPlatform::createEngine() {
  static int argc = 1;
  static char name[] = "ddlsim";
  static char* argv[] = {name, nullptr};
  auto engine = std::make_unique<sg4::Engine>(&argc, argv);
  configureSimGridOnce();
  return engine;
}

SimulatedPlatform::SimulatedPlatform(const PlatformDescription& description)
    : description_(description), engine_(createEngine()) {
  zone_ = sg4::create_full_zone("cluster");
  hosts_.reserve(static_cast<std::size_t>(description.hosts()));
  for (Rank rank = 0; rank < description.hosts(); ++rank) {
    sg4::Host* host = zone_->create_host(description.hostName(rank), kHostSpeed);
    host->set_core_count(kCoresPerGpu);
    hosts_.push_back(host);
  }
}

SimulatedPlatform::~SimulatedPlatform() = default;

sg4::Link* SimulatedPlatform::linkFor(LinkId id) {
  auto [it, added] = links_.try_emplace(id, nullptr);
  if (added) {
    const PlatformLink spec = description_.link(id);
    const double bandwidth = simulatedBandwidth(spec.bandwidthBps);
    switch (spec.sharing) {
      case LinkSharing::PerDirection:
        it->second = zone_->create_split_duplex_link(spec.name, bandwidth)->set_latency(spec.latencySeconds)->seal();
        break;
      case LinkSharing::BothDirections:
        it->second = zone_->create_link(spec.name, bandwidth)->set_latency(spec.latencySeconds)->seal();
        break;
      case LinkSharing::None:
        it->second = zone_->create_link(spec.name, bandwidth)
                         ->set_latency(spec.latencySeconds)
                         ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                         ->seal();
        break;
    }
  }
  return it->second;
}

std::vector<sg4::LinkInRoute> SimulatedPlatform::linksOf(const std::vector<RouteHop>& hops) {
  std::vector<sg4::LinkInRoute> route;
  for (const RouteHop& hop : hops) {
    sg4::Link* link = linkFor(hop.link);
    if (link->get_sharing_policy() == sg4::Link::SharingPolicy::SPLITDUPLEX) {
      route.emplace_back(link, hop.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
    } else {
      route.emplace_back(link);
    }
  }
  return route;
}

void SimulatedPlatform::connect(Rank from, Rank to) {
  if (!connected_.emplace(std::pair{from, to}, true).second) return;
  zone_->add_route(host(from)->get_netpoint(), host(to)->get_netpoint(), nullptr, nullptr,
                   linksOf(description_.route(from, to)), false);
}

void SimulatedPlatform::connectReductions(Rank rank) {
  if (reductionSinks_.count(rank)) return;
  const std::optional<ReductionTraffic> traffic = description_.reductionTraffic(rank);
  if (!traffic) return;
  sg4::Host* sink = sg4::Host::by_name_or_null(traffic->sinkHost);
  if (!sink) sink = zone_->create_host(traffic->sinkHost, kHostSpeed);
  zone_->add_route(host(rank)->get_netpoint(), sink->get_netpoint(), nullptr, nullptr, linksOf(traffic->route), false);
  reductionSinks_[rank] = {sink, traffic->bytesPerReducedByte};
}

sg4::Host* SimulatedPlatform::computeHost(Rank rank) {
  // Where every rank computes on one machine's cores, one host of that machine's throughput for all of them
  // (kept under rank -1), each execution bounded to one rank's speed by its caller.
  const std::optional<double> shared = description_.sharedComputeThroughput();
  auto [it, added] = computeHosts_.try_emplace(shared ? Rank{-1} : rank, nullptr);
  if (added) {
    // In a zone of their own with no routing: nothing is sent to or from them, they only execute, and the
    // cluster's full zone, whose routing table grows as the square of its netpoints, counts that zone once.
    if (!computeZone_) {
      computeZone_ = sg4::create_empty_zone("compute");
      computeZone_->set_parent(zone_);
    }
    it->second = shared ? computeZone_->create_host("shared-host-compute", *shared * kHostSpeed)
                        : computeZone_->create_host(description_.hostName(rank) + "-compute", kHostSpeed);
  }
  return it->second;
}

sg4::Host* SimulatedPlatform::reductionSink(Rank rank) const {
  auto it = reductionSinks_.find(rank);
  return it == reductionSinks_.end() ? nullptr : it->second.host;
}

double SimulatedPlatform::reductionBytesPerByte(Rank rank) const {
  auto it = reductionSinks_.find(rank);
  return it == reductionSinks_.end() ? 0 : it->second.bytesPerByte;
}

sg4::Mailbox* SimulatedPlatform::mailbox(Rank from, Rank to, Channel channel) const {
  return sg4::Mailbox::by_name(std::to_string(from) + ">" + std::to_string(to) + "#" + std::to_string(channel));
}

sg4::Host* SimulatedPlatform::networkWorkHost() const {
  auto it = computeHosts_.find(Rank{-1});
  return it == computeHosts_.end() ? nullptr : it->second;
}

bool SimulatedPlatform::run() {
  // Every route is in by now: the machine that carrying works on may join (see computeHost).
  if (description_.sharedComputeThroughput() && description_.hosts() > 0) computeHost(0);
  if (computeZone_) computeZone_->seal();
  zone_->seal();
  deadlockDetected = false;
  engine_->run();
  return !deadlockDetected;
}

double SimulatedPlatform::now() { return sg4::Engine::get_clock(); }

}  // namespace ddl
