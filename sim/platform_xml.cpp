#include "sim/platform_xml.hpp"

#include "sim/network_model.hpp"

#include <iomanip>
#include <set>

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

class XmlWriter {
 public:
  XmlWriter(std::ostream& out, const PlatformDescription& platform) : out_(out), platform_(platform) {}

  void link(const RouteHop& hop) {
    if (!written_.insert(hop.link).second) return;
    const PlatformLink link = platform_.link(hop.link);
    out_ << "    <link id=\"" << link.name << "\" bandwidth=\"" << link.bandwidthBps << "Bps\" latency=\"" << link.latencySeconds
         << "s\" sharing_policy=\"" << policyOf(link.sharing) << "\"/>\n";
  }

  void route(const std::string& from, const std::string& to, const std::vector<RouteHop>& hops) {
    out_ << "    <route src=\"" << from << "\" dst=\"" << to << "\" symmetrical=\"NO\">";
    for (const RouteHop& hop : hops) {
      const PlatformLink link = platform_.link(hop.link);
      out_ << "<link_ctn id=\"" << link.name << "\"";
      if (link.sharing == LinkSharing::PerDirection) out_ << " direction=\"" << (hop.up ? "UP" : "DOWN") << "\"";
      out_ << "/>";
    }
    out_ << "</route>\n";
  }

 private:
  std::ostream& out_;
  const PlatformDescription& platform_;
  std::set<LinkId> written_;
};

}  // namespace

void writeSimGridXml(std::ostream& out, const PlatformDescription& platform, double hostSpeed, int coresPerHost) {
  out << std::setprecision(17);
  out << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<platform version=\"4.1\">\n";
  // ddlsim's network model, which plain SimGrid applies when it loads the file.
  out << "  <config>\n";
  for (const SimGridSetting& setting : kNetworkModel)
    out << "    <prop id=\"" << setting.name << "\" value=\"" << setting.value << "\"/>\n";
  out << "  </config>\n  <zone id=\"cluster\" routing=\"Full\">\n";
  for (Rank rank = 0; rank < platform.hosts(); ++rank)
    out << "    <host id=\"" << platform.hostName(rank) << "\" speed=\"" << hostSpeed << "f\" core=\"" << coresPerHost
        << "\"/>\n";
  // Where reductions are memory traffic, the memory they flow to is a host of its own.
  std::set<std::string> sinks;
  for (Rank rank = 0; rank < platform.hosts(); ++rank)
    if (const auto traffic = platform.reductionTraffic(rank); traffic && sinks.insert(traffic->sinkHost).second)
      out << "    <host id=\"" << traffic->sinkHost << "\" speed=\"" << hostSpeed << "f\"/>\n";

  XmlWriter writer(out, platform);
  for (Rank from = 0; from < platform.hosts(); ++from) {
    for (Rank to = 0; to < platform.hosts(); ++to)
      if (from != to)
        for (const RouteHop& hop : platform.route(from, to)) writer.link(hop);
    if (const auto traffic = platform.reductionTraffic(from))
      for (const RouteHop& hop : traffic->route) writer.link(hop);
  }
  for (Rank from = 0; from < platform.hosts(); ++from) {
    for (Rank to = 0; to < platform.hosts(); ++to)
      if (from != to) writer.route(platform.hostName(from), platform.hostName(to), platform.route(from, to));
    if (const auto traffic = platform.reductionTraffic(from)) writer.route(platform.hostName(from), traffic->sinkHost, traffic->route);
  }
  out << "  </zone>\n</platform>\n";
}

}  // namespace ddl
