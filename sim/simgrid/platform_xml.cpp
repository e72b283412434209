#include "sim/simgrid/platform_xml.hpp"

#include <iomanip>
#include <set>
#include <string>
#include <vector>

#include "common/xml_text.hpp"
#include "sim/engine/platform_constants.hpp"
#include "sim/simgrid/network_model.hpp"

namespace ddl {
namespace {

const char* policyOf(LinkSharing sharing) {
  switch (sharing) {
    case LinkSharing::PerDirection: return "SPLITDUPLEX";
    case LinkSharing::BothDirections: return "SHARED";
    case LinkSharing::None: return "FATPIPE";
  }
  return "SHARED";
}

std::string nodeZone(int node) { return "n" + std::to_string(node); }
std::string gateway(int node) { return nodeZone(node) + "-gateway"; }
std::string leafZone(int leaf) { return "leaf" + std::to_string(leaf); }
std::string uplinkZone(int leaf) { return leafZone(leaf) + "-uplink"; }
std::string leafSwitch(int leaf) { return leafZone(leaf) + "-switch"; }
std::string crossbar(int leaf) { return leafZone(leaf) + "-crossbar"; }

// One route of a zone: between two of its netpoints, or (with gateways) between two of its child zones.
struct ZoneRoute {
  std::string from;
  std::string to;
  std::vector<RouteHop> hops;
  std::string gatewayFrom = {};  // empty for a route between netpoints
  std::string gatewayTo = {};
};

class XmlWriter {
 public:
  XmlWriter(std::ostream& out, const Cluster& cluster) : out_(out), cluster_(cluster) {}

  std::ostream& line(int depth) { return out_ << std::string(static_cast<std::size_t>(2 * depth), ' '); }

  // The links of `routes` not declared yet, then the routes: what the zone being written holds.
  void routes(int depth, const std::vector<ZoneRoute>& routes) {
    for (const ZoneRoute& route : routes)
      for (const RouteHop& hop : route.hops) {
        if (!written_.insert(hop.link).second) continue;
        const PlatformLink link = cluster_.link(hop.link);
        line(depth) << "<link id=\"" << xmlAttribute(link.name, "link name") << "\" bandwidth=\"" << link.bandwidthBps << "Bps\" latency=\""
                    << link.latencySeconds << "s\" sharing_policy=\"" << policyOf(link.sharing) << "\"/>\n";
      }
    for (const ZoneRoute& route : routes) {
      const char* tag = route.gatewayFrom.empty() ? "route" : "zoneRoute";
      line(depth) << "<" << tag << " src=\"" << route.from << "\" dst=\"" << route.to << "\"";
      if (!route.gatewayFrom.empty()) out_ << " gw_src=\"" << route.gatewayFrom << "\" gw_dst=\"" << route.gatewayTo << "\"";
      out_ << " symmetrical=\"NO\">";
      hopsOf(route.hops);
      out_ << "</" << tag << ">\n";
    }
  }

  void crossbarRoute(int depth, int leaf, const std::string& from, const std::string& to, const std::string& gatewayFrom,
                     const std::string& gatewayTo) {
    line(depth) << "<zoneRoute src=\"" << from << "\" dst=\"" << to << "\" gw_src=\"" << gatewayFrom << "\" gw_dst=\""
                << gatewayTo << "\" symmetrical=\"NO\"><link_ctn id=\"" << crossbar(leaf) << "\"/></zoneRoute>\n";
  }

 private:
  void hopsOf(const std::vector<RouteHop>& hops) {
    for (const RouteHop& hop : hops) {
      const PlatformLink link = cluster_.link(hop.link);
      out_ << "<link_ctn id=\"" << xmlAttribute(link.name, "link name") << "\"";
      if (link.sharing == LinkSharing::PerDirection) out_ << " direction=\"" << (hop.up ? "UP" : "DOWN") << "\"";
      out_ << "/>";
    }
  }

  std::ostream& out_;
  const Cluster& cluster_;
  std::set<LinkId> written_;
};

std::vector<std::vector<Rank>> ranksPerNode(const Cluster& cluster) {
  std::vector<std::vector<Rank>> ranks(static_cast<std::size_t>(cluster.nodes()));
  for (Rank rank = 0; rank < cluster.hosts(); ++rank) ranks[static_cast<std::size_t>(cluster.locate(rank).node)].push_back(rank);
  return ranks;
}

// The nodes under each leaf.
std::vector<std::vector<int>> nodesPerLeaf(const Cluster& cluster) {
  std::vector<std::vector<int>> nodes(static_cast<std::size_t>(cluster.leaves()));
  for (int node = 0; node < cluster.nodes(); ++node) nodes[static_cast<std::size_t>(cluster.leafOf(node))].push_back(node);
  return nodes;
}

struct Writer {
  std::ostream& out;
  const Cluster& cluster;
  double hostSpeed;
  int coresPerHost;
  XmlWriter xml{out, cluster};

  void node(int depth, int node, const std::vector<Rank>& ranks) {
    xml.line(depth) << "<zone id=\"" << nodeZone(node) << "\" routing=\"Full\">\n";
    for (Rank rank : ranks)
      xml.line(depth + 1) << "<host id=\"" << cluster.hostName(rank) << "\" speed=\"" << hostSpeed << "f\" core=\""
                          << coresPerHost << "\"/>\n";
    // Where reductions are memory traffic, the memory they flow to is a host of its own.
    const auto sink = ranks.empty() ? std::nullopt : cluster.reductionTraffic(ranks.front());
    if (sink) xml.line(depth + 1) << "<host id=\"" << sink->sinkHost << "\" speed=\"" << hostSpeed << "f\"/>\n";
    const bool connected = cluster.nodes() > 1;
    if (connected) xml.line(depth + 1) << "<router id=\"" << gateway(node) << "\"/>\n";

    std::vector<ZoneRoute> routes;
    for (Rank from : ranks) {
      const std::string host = cluster.hostName(from);
      for (Rank to : ranks)
        if (from != to) routes.push_back({host, cluster.hostName(to), cluster.routeWithinNode(from, to)});
      if (connected) {
        routes.push_back({host, gateway(node), cluster.routeOutOfNode(from)});
        routes.push_back({gateway(node), host, cluster.routeIntoNode(from)});
      }
      if (sink) routes.push_back({host, sink->sinkHost, cluster.reductionTraffic(from)->route});
    }
    xml.routes(depth + 1, routes);
    xml.line(depth) << "</zone>\n";
  }

  // The nodes of one leaf as the children of the zone being written, with the routes between them.
  void leafContents(int depth, int leaf, const std::vector<int>& nodes, const std::vector<std::vector<Rank>>& ranks,
                    bool uplinked) {
    for (int n : nodes) node(depth, n, ranks[static_cast<std::size_t>(n)]);
    if (uplinked) {
      xml.line(depth) << "<zone id=\"" << uplinkZone(leaf) << "\" routing=\"None\">\n";
      xml.line(depth + 1) << "<router id=\"" << leafSwitch(leaf) << "\"/>\n";
      xml.line(depth) << "</zone>\n";
    }
    if (nodes.size() < 2 && !uplinked) return;
    xml.line(depth) << "<link id=\"" << crossbar(leaf) << "\" bandwidth=\"" << kUnlimitedBandwidth
                    << "Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n";
    for (int from : nodes) {
      for (int to : nodes)
        if (from != to) xml.crossbarRoute(depth, leaf, nodeZone(from), nodeZone(to), gateway(from), gateway(to));
      if (uplinked) {
        xml.crossbarRoute(depth, leaf, nodeZone(from), uplinkZone(leaf), gateway(from), leafSwitch(leaf));
        xml.crossbarRoute(depth, leaf, uplinkZone(leaf), nodeZone(from), leafSwitch(leaf), gateway(from));
      }
    }
  }

  void fabric(int depth) {
    const std::vector<std::vector<Rank>> ranks = ranksPerNode(cluster);
    const std::vector<std::vector<int>> leaves = nodesPerLeaf(cluster);
    if (leaves.size() == 1) {
      leafContents(depth, 0, leaves.front(), ranks, false);
      return;
    }
    for (std::size_t leaf = 0; leaf < leaves.size(); ++leaf) {
      xml.line(depth) << "<zone id=\"" << leafZone(static_cast<int>(leaf)) << "\" routing=\"Full\">\n";
      leafContents(depth + 1, static_cast<int>(leaf), leaves[leaf], ranks, true);
      xml.line(depth) << "</zone>\n";
    }
    std::vector<ZoneRoute> routes;
    for (int from = 0; from < cluster.leaves(); ++from)
      for (int to = 0; to < cluster.leaves(); ++to)
        if (from != to)
          routes.push_back({leafZone(from), leafZone(to), cluster.routeBetweenLeaves(from, to), leafSwitch(from), leafSwitch(to)});
    xml.routes(depth, routes);
  }
};

}  // namespace

std::int64_t simGridXmlRouteCount(const Cluster& cluster) {
  std::int64_t routes = 0;
  const bool connected = cluster.nodes() > 1;
  for (const auto& ranks : ranksPerNode(cluster)) {
    const auto gpus = static_cast<std::int64_t>(ranks.size());
    routes += gpus * (gpus - 1) + (connected ? 2 * gpus : 0) + (cluster.topology().node.sharedMemory ? gpus : 0);
  }
  const std::int64_t leaves = cluster.leaves();
  for (const auto& nodes : nodesPerLeaf(cluster)) {
    const auto children = static_cast<std::int64_t>(nodes.size()) + (leaves > 1 ? 1 : 0);
    routes += children * (children - 1);
  }
  return routes + leaves * (leaves - 1);
}

void writeSimGridXml(std::ostream& out, const Cluster& cluster, double hostSpeed, int coresPerHost) {
  out << std::setprecision(17);
  out << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<platform version=\"4.1\">\n";
  // ddlsim's network model, which plain SimGrid applies when it loads the file.
  out << "  <config>\n";
  for (const SimGridSetting& setting : kNetworkModel)
    out << "    <prop id=\"" << setting.name << "\" value=\"" << setting.value << "\"/>\n";
  out << "  </config>\n  <zone id=\"cluster\" routing=\"Full\">\n";
  Writer{out, cluster, hostSpeed, coresPerHost}.fabric(2);
  out << "  </zone>\n</platform>\n";
}

}  // namespace ddl
