#include "topologies/platform_with_switches.hpp"

#include <stdexcept>

#include "common/invalid_argument.hpp"

namespace ddl {

PlatformWithSwitches::PlatformWithSwitches(const Cluster& cluster) : PlatformDecorator(cluster), cluster_(cluster) {
  if (cluster.topology().node.multicastSwitch.empty())
    throw InvalidArgument(cluster.topology().path + ": $.node",
                          "names no multicast_switch: its GPUs cannot reduce in a switch (NVLS needs an NVSwitch with "
                          "multicast, as on DGX H100)");
}

std::string PlatformWithSwitches::hostName(Rank host) const {
  if (!isSwitch(host)) return cluster_.hostName(host);
  return "n" + std::to_string(host - cluster_.hosts()) + "-" + cluster_.topology().node.multicastSwitch;
}

PlatformLink PlatformWithSwitches::link(LinkId id) const {
  PlatformLink link = cluster_.link(id);
  link.bandwidthBps *= kNvlsBandwidthShare;
  return link;
}

std::vector<RouteHop> PlatformWithSwitches::route(Rank from, Rank to) const {
  if (!isSwitch(from) && !isSwitch(to)) return cluster_.route(from, to);
  const Rank gpu = isSwitch(from) ? to : from;
  const int node = (isSwitch(from) ? from : to) - cluster_.hosts();
  if (isSwitch(gpu) || cluster_.locate(gpu).node != node)
    throw std::logic_error("a switch exchanges data only with the GPUs of its own node, not host " + std::to_string(gpu));
  return isSwitch(from) ? cluster_.routeFromSwitch(gpu) : cluster_.routeToSwitch(gpu);
}

}  // namespace ddl
