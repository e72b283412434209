#include "sim/simgrid/platform_xml_check.hpp"

#include <cmath>
#include <exception>
#include <set>
#include <utility>

#include <simgrid/s4u.hpp>

#include "sim/simgrid/simulated_platform.hpp"

namespace ddl {
namespace sg4 = simgrid::s4u;

namespace {

// Every pair of a small cluster; beyond, the first and last GPU to and from every other: each node's, each
// leaf's and the fabric's routes are crossed, in time linear in the GPUs.
constexpr Rank kEveryPairUpTo = 64;

bool isCrossbar(const std::string& name) { return name.ends_with("-crossbar"); }

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : " ") + name;
  return text.empty() ? "(none)" : text;
}

// The difference between SimGrid's route from `from` to `to` and `expected` (its hops in the cluster).
std::optional<std::string> routeMismatch(const sg4::Host& from, const sg4::Host& to, const Cluster& cluster,
                                         const std::vector<RouteHop>& expected) {
  std::vector<sg4::Link*> crossed;
  double latency = 0;
  from.route_to(&to, crossed, &latency);
  std::vector<const sg4::Link*> links;
  for (const sg4::Link* link : crossed)
    if (!isCrossbar(link->get_name())) links.push_back(link);
  const std::vector<std::string> names = simGridLinkNames(cluster, expected);
  std::vector<std::string> found;
  for (const sg4::Link* link : links) found.push_back(link->get_name());
  const std::string pair = from.get_name() + " -> " + to.get_name();
  if (found != names) return pair + ": SimGrid routes over " + joined(found) + ", the cluster over " + joined(names);
  double expectedLatency = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const PlatformLink link = cluster.link(expected[i].link);
    expectedLatency += link.latencySeconds;
    if (!close(links[i]->get_bandwidth(), link.bandwidthBps))
      return pair + ": " + found[i] + " carries " + std::to_string(links[i]->get_bandwidth()) + " B/s in SimGrid, " +
             std::to_string(link.bandwidthBps) + " in the cluster";
  }
  if (!close(latency, expectedLatency))
    return pair + ": a latency of " + std::to_string(latency) + " s in SimGrid, " + std::to_string(expectedLatency) +
           " s in the cluster";
  return std::nullopt;
}

}  // namespace

std::vector<std::string> simGridLinkNames(const Cluster& cluster, const std::vector<RouteHop>& route) {
  std::vector<std::string> names;
  for (const RouteHop& hop : route) {
    const PlatformLink link = cluster.link(hop.link);
    names.push_back(link.sharing == LinkSharing::PerDirection ? link.name + (hop.up ? "_UP" : "_DOWN") : link.name);
  }
  return names;
}

std::optional<std::string> simGridXmlMismatch(const std::string& path, const Cluster& cluster) {
  const auto engine = SimulatedPlatform::createEngine();
  try {
    engine->load_platform(path);
  } catch (const std::exception& error) {
    return std::string("SimGrid cannot load it: ") + error.what();
  }
  std::vector<const sg4::Host*> hosts;
  for (Rank rank = 0; rank < cluster.hosts(); ++rank) {
    const sg4::Host* host = engine->host_by_name_or_null(cluster.hostName(rank));
    if (!host) return "no host " + cluster.hostName(rank) + " in it";
    hosts.push_back(host);
  }
  std::set<std::pair<Rank, Rank>> pairs;
  const Rank last = cluster.hosts() - 1;
  for (Rank one = 0; one <= last; ++one) {
    for (Rank end : {Rank{0}, last}) {
      if (one == end) continue;
      pairs.emplace(end, one);
      pairs.emplace(one, end);
    }
    for (Rank other = 0; cluster.hosts() <= kEveryPairUpTo && other <= last; ++other)
      if (other != one) pairs.emplace(one, other);
  }
  for (const auto& [from, to] : pairs)
    if (auto mismatch = routeMismatch(*hosts[from], *hosts[to], cluster, cluster.route(from, to))) return mismatch;
  for (Rank rank : {Rank{0}, last}) {
    const auto traffic = cluster.reductionTraffic(rank);
    if (!traffic) continue;
    const sg4::Host* sink = engine->host_by_name_or_null(traffic->sinkHost);
    if (!sink) return "no host " + traffic->sinkHost + " in it";
    if (auto mismatch = routeMismatch(*hosts[rank], *sink, cluster, traffic->route)) return mismatch;
  }
  return std::nullopt;
}

}  // namespace ddl
