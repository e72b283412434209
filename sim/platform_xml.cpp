#include "sim/platform_xml.hpp"

#include <iomanip>
#include <set>

namespace ddl {

void writeSimGridXml(std::ostream& out, const PlatformDescription& platform, double hostSpeed, int coresPerHost) {
  out << std::setprecision(17);
  out << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<platform version=\"4.1\">\n  <zone id=\"cluster\" routing=\"Full\">\n";
  for (Rank rank = 0; rank < platform.hosts(); ++rank)
    out << "    <host id=\"" << platform.hostName(rank) << "\" speed=\"" << hostSpeed << "f\" core=\"" << coresPerHost
        << "\"/>\n";
  std::set<LinkId> written;
  for (Rank from = 0; from < platform.hosts(); ++from)
    for (Rank to = 0; to < platform.hosts(); ++to) {
      if (from == to) continue;
      for (const RouteHop& hop : platform.route(from, to)) {
        if (!written.insert(hop.link).second) continue;
        const PlatformLink link = platform.link(hop.link);
        out << "    <link id=\"" << link.name << "\" bandwidth=\"" << link.bandwidthBps << "Bps\" latency=\""
            << link.latencySeconds << "s\" sharing_policy=\"" << (link.shared ? "SPLITDUPLEX" : "FATPIPE") << "\"/>\n";
      }
    }
  for (Rank from = 0; from < platform.hosts(); ++from)
    for (Rank to = 0; to < platform.hosts(); ++to) {
      if (from == to) continue;
      out << "    <route src=\"" << platform.hostName(from) << "\" dst=\"" << platform.hostName(to)
          << "\" symmetrical=\"NO\">";
      for (const RouteHop& hop : platform.route(from, to)) {
        const PlatformLink link = platform.link(hop.link);
        out << "<link_ctn id=\"" << link.name << "\"";
        if (link.shared) out << " direction=\"" << (hop.up ? "UP" : "DOWN") << "\"";
        out << "/>";
      }
      out << "</route>\n";
    }
  out << "  </zone>\n</platform>\n";
}

}  // namespace ddl
