#include "topologies/platform_with_switches.hpp"

#include <stdexcept>

#include "common/invalid_argument.hpp"

namespace ddl {

std::optional<SwitchMisfit> switchMisfit(int ranks, int switches, const std::string& description, const Cluster& cluster) {
  if (switches == 0) return std::nullopt;
  const std::string& name = cluster.topology().name;
  if (cluster.topology().node.multicastSwitch.empty())
    return SwitchMisfit{SwitchMisfit::What::NoMulticastSwitch, description + " reduces in an NVSwitch with multicast (NVLS), and " + name +
                                                                   "'s node names none (its topology file's node.multicast_switch)"};
  const std::string placed = std::to_string(cluster.hosts()) + " GPUs of " + name + " take " + std::to_string(cluster.nodes()) +
                             " nodes of " + std::to_string(cluster.topology().node.gpus) + " GPUs";
  if (switches != cluster.nodes())
    return SwitchMisfit{SwitchMisfit::What::NotOnePerNode,
                        description + (switches == 1 ? std::string(" runs on one node's NVSwitch")
                                                     : " has " + std::to_string(switches) + " switches, one per node of its ranks") +
                            ", but " + placed};
  const int perSwitch = ranks / switches;
  for (Rank rank = 0; rank < ranks; ++rank)
    if (cluster.locate(rank).node != rank / perSwitch)
      return SwitchMisfit{SwitchMisfit::What::RanksOffTheirNode, description + " serves ranks " + std::to_string(perSwitch) +
                                                                     " to a switch, but " + placed + ": rank " + std::to_string(rank) +
                                                                     " sits on node " + std::to_string(cluster.locate(rank).node)};
  return std::nullopt;
}

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

std::vector<RouteHop> PlatformWithSwitches::route(Rank from, Rank to) const {
  if (!isSwitch(from) && !isSwitch(to)) return cluster_.route(from, to);
  const Rank gpu = isSwitch(from) ? to : from;
  const int node = (isSwitch(from) ? from : to) - cluster_.hosts();
  if (isSwitch(gpu) || cluster_.locate(gpu).node != node)
    throw std::logic_error("a switch exchanges data only with the GPUs of its own node, not host " + std::to_string(gpu));
  return isSwitch(from) ? cluster_.routeFromSwitch(gpu) : cluster_.routeToSwitch(gpu);
}

}  // namespace ddl
