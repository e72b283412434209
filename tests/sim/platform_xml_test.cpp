// The SimGrid platform file ddlsim exports is the cluster ddlsim simulates: loaded into SimGrid, its nested
// zones give every pair of GPUs the links of Cluster::route, in order and direction, and a message between
// two GPUs of different nodes takes the route's latency plus its size over its narrowest link.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

#include "sim/simgrid/platform_xml.hpp"
#include "sim/simgrid/platform_xml_check.hpp"
#include "sim/simgrid/simulated_platform.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {
namespace sg4 = simgrid::s4u;

// Two Minsky nodes of 4 GPUs, exported to `path`.
Cluster exportTwoMinskyNodes(const std::string& path) {
  Cluster cluster(loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/minsky-p100-ib-edr.json"), 8,
                  Placement::Packed);
  std::ofstream file(path);
  writeSimGridXml(file, cluster, SimulatedPlatform::kHostSpeed, 1024);
  return cluster;
}

// The α-β time of `bytes` from `from` to `to`: the route's latency plus the bytes over its narrowest link.
double routeSeconds(const Cluster& cluster, Rank from, Rank to, double bytes) {
  double latency = 0;
  double bandwidth = 1e300;
  for (const RouteHop& hop : cluster.route(from, to)) {
    latency += cluster.link(hop.link).latencySeconds;
    bandwidth = std::min(bandwidth, cluster.link(hop.link).bandwidthBps);
  }
  return latency + bytes / bandwidth;
}

// SimGrid's route between every ordered pair of hosts of `platform`, from plain_simgrid_routes run as its own
// process (SimGrid takes a file's <config> only in a process that has loaded no platform yet): "FROM TO" ->
// the links crossed, a split-duplex one as NAME_UP or NAME_DOWN, without the leaf crossbars (no latency, no
// limit: the exported file's stand-in for a switch).
std::map<std::string, std::vector<std::string>> plainSimGridRoutes(const std::string& platform) {
  std::map<std::string, std::vector<std::string>> routes;
  FILE* pipe = popen((std::string(PLAIN_SIMGRID_ROUTES) + " " + platform + " 2>/dev/null").c_str(), "r");
  if (!pipe) return routes;
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (pclose(pipe) != 0) return {};
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string from, to, link;
    words >> from >> to;
    std::vector<std::string>& links = routes[from + " " + to];
    while (words >> link) {
      if (link.find("-crossbar") == std::string::npos) links.push_back(link);
    }
  }
  return routes;
}

// Exports `cluster` and compares plain SimGrid's route of every ordered pair of GPUs (and of every GPU to its
// shared memory) with the cluster's own.
void expectEveryRouteAsTheClusterHasIt(const Cluster& cluster, const std::string& name) {
  const std::string path = testing::TempDir() + "/" + name + ".xml";
  {
    std::ofstream file(path);
    writeSimGridXml(file, cluster, SimulatedPlatform::kHostSpeed, 1024);
  }
  const auto routes = plainSimGridRoutes(path);
  ASSERT_FALSE(routes.empty()) << "plain_simgrid_routes failed on " << path;
  auto simgrid = [&](const std::string& from, const std::string& to) {
    auto it = routes.find(from + " " + to);
    return it == routes.end() ? std::vector<std::string>{"(no route)"} : it->second;
  };
  for (Rank from = 0; from < cluster.hosts(); ++from) {
    for (Rank to = 0; to < cluster.hosts(); ++to) {
      if (from == to) continue;
      ASSERT_EQ(simgrid(cluster.hostName(from), cluster.hostName(to)), simGridLinkNames(cluster, cluster.route(from, to)))
          << name << ": " << cluster.hostName(from) << " -> " << cluster.hostName(to);
    }
    if (const auto traffic = cluster.reductionTraffic(from)) {
      ASSERT_EQ(simgrid(cluster.hostName(from), traffic->sinkHost), simGridLinkNames(cluster, traffic->route)) << name;
    }
  }
}

Topology shippedTopology(const std::string& name, int nodesPerLeaf) {
  Topology topology = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json");
  if (nodesPerLeaf > 0) topology.network.nodesPerLeaf = nodesPerLeaf;
  return topology;
}

TEST(PlatformXml, NestedZonesRouteEveryPairAsTheClusterDoes) {
  // One node; one leaf of two nodes; three leaves of two nodes (the last with one); NICs shared by several
  // GPUs (DGX H100: eight NICs, and a GPU per NIC); ranks placed round-robin; ranks sharing one GPU's memory.
  expectEveryRouteAsTheClusterHasIt(Cluster(shippedTopology("minsky-p100-ib-edr", 0), 4, Placement::Packed), "minsky-1");
  expectEveryRouteAsTheClusterHasIt(Cluster(shippedTopology("minsky-p100-ib-edr", 0), 8, Placement::Packed), "minsky-2");
  expectEveryRouteAsTheClusterHasIt(Cluster(shippedTopology("minsky-p100-ib-edr", 2), 20, Placement::Packed), "minsky-5");
  expectEveryRouteAsTheClusterHasIt(Cluster(shippedTopology("dgx-h100-ndr", 2), 24, Placement::Packed), "dgx-3");
  expectEveryRouteAsTheClusterHasIt(Cluster(shippedTopology("dgx1-v100-ib-edr", 1), 16, Placement::RoundRobin), "dgx1-rr");
  expectEveryRouteAsTheClusterHasIt(Cluster(shippedTopology("h200-ranks-sharing-one-gpu", 0), 4, Placement::Packed),
                                    "shared-gpu");
}

TEST(PlatformXml, LinkNamesThatXmlMustEscapeAreWrittenSoThatSimGridReadsThemBack) {
  // A topology file may name a link anything JSON holds: written as it is, this one left a file no XML
  // parser reads, with exit 0. (No space: the route listing separates links by spaces.)
  Topology topology = shippedTopology("bigbasin-p100-50gbe", 0);
  topology.node.links.front().name = "nvlink\"gpu0\"&<gpu1>'";
  expectEveryRouteAsTheClusterHasIt(Cluster(topology, 8, Placement::Packed), "escaped-names");
}

TEST(PlatformXml, GrowsWithTheNodesNotWithThePairsOfGpus) {
  // 256 Minsky GPUs: 64 nodes of 4 GPUs (12 routes between them, 8 to and from the gateway), 4 leaves of 16
  // nodes and their uplink zone (17 x 16 zoneRoutes each), 4 x 3 between leaves: 2380, not 256 x 255.
  const Cluster cluster(shippedTopology("minsky-p100-ib-edr", 0), 256, Placement::Packed);
  EXPECT_EQ(simGridXmlRouteCount(cluster), 64 * 20 + 4 * 17 * 16 + 4 * 3);
  std::ostringstream text;
  writeSimGridXml(text, cluster, SimulatedPlatform::kHostSpeed, 1024);
  const std::string xml = text.str();
  std::int64_t listed = 0;
  for (const char* tag : {"<route ", "<zoneRoute "})
    for (std::size_t at = xml.find(tag); at != std::string::npos; at = xml.find(tag, at + 1)) ++listed;
  EXPECT_EQ(listed, simGridXmlRouteCount(cluster));
}

TEST(PlatformXml, LoadsIntoSimGridWithTheSameRoutes) {
  const std::string path = testing::TempDir() + "/minsky.xml";
  const Cluster cluster = exportTwoMinskyNodes(path);

  const auto engine = SimulatedPlatform::createEngine();
  engine->load_platform(path);
  ASSERT_EQ(engine->get_all_hosts().size(), 8u);
  const double bytes = 8e6;
  const double start = sg4::Engine::get_clock();
  double arrived = 0;
  static int payload = 0;
  sg4::Actor::create("sender", engine->host_by_name(cluster.hostName(1)),
                     [&] { sg4::Mailbox::by_name("xml")->put(&payload, bytes); });
  sg4::Actor::create("receiver", engine->host_by_name(cluster.hostName(6)), [&] {
    sg4::Mailbox::by_name("xml")->get<int>();
    arrived = sg4::Engine::get_clock();
  });
  engine->run();
  EXPECT_NEAR(arrived - start, routeSeconds(cluster, 1, 6, bytes), 1e-12);
}

TEST(PlatformXml, TheReadBackAcceptsTheExportAsWritten) {
  // What `ddlsim platform --xml` runs on every export before it puts the file out.
  const std::string path = testing::TempDir() + "/minsky-read-back.xml";
  const Cluster cluster = exportTwoMinskyNodes(path);
  // In a process of its own, as the command runs it: SimGrid takes a file's <config> only before any platform.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(simGridXmlMismatch(path, cluster) ? 1 : 0), testing::ExitedWithCode(0), "");
}

TEST(PlatformXml, TheReadBackNamesALinkSimGridWouldTimeOtherwise) {
  // The file says 1 GB/s where the cluster's NVLink carries 40: SimGrid would route the same links, slower.
  const std::string path = testing::TempDir() + "/minsky-doctored.xml";
  const Cluster cluster = exportTwoMinskyNodes(path);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string link = "<link id=\"n1-nvlink-gpu0-gpu1\" bandwidth=\"";
  const std::size_t at = text.find(link);
  ASSERT_NE(at, std::string::npos);
  text.replace(at + link.size(), text.find('"', at + link.size()) - at - link.size(), "1e9Bps");
  std::ofstream(path) << text;
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const auto mismatch = simGridXmlMismatch(path, cluster);
        std::fprintf(stderr, "%s\n", mismatch.value_or("(no mismatch)").c_str());
        std::exit(mismatch ? 0 : 1);
      },
      testing::ExitedWithCode(0), "n1-nvlink-gpu0-gpu1_UP carries 1000000000");
}

// Simulated seconds of a `bytes` transfer from `from` to `to` in plain SimGrid, run as its own process.
double plainSimGridTransfer(const std::string& platform, const std::string& from, const std::string& to, double bytes) {
  const std::string command = std::string(PLAIN_SIMGRID_TRANSFER) + " " + platform + " " + from + " " + to + " " +
                              std::to_string(bytes) + " 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char line[64] = "";
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  return pclose(pipe) == 0 && read ? std::atof(line) : -1;
}

TEST(PlatformXml, PlainSimGridTimesATransferAsDdlsimDoes) {
  // The export carries ddlsim's network model, so SimGrid without ddlsim gives the route's latency plus
  // 1 GB over its narrowest link, which is what ddlsim simulates, within 0.1%.
  const std::string path = testing::TempDir() + "/minsky-plain.xml";
  const Cluster cluster = exportTwoMinskyNodes(path);
  const double bytes = 1e9;
  const double expected = routeSeconds(cluster, 1, 6, bytes);
  const double plain = plainSimGridTransfer(path, cluster.hostName(1), cluster.hostName(6), bytes);
  ASSERT_GT(plain, 0) << "plain_simgrid_transfer failed on " << path;
  EXPECT_NEAR(plain, expected, 1e-3 * expected);

  // Without the <config>, SimGrid's default model (LV08) is visibly slower: the test above would notice a
  // file that lost it.
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.erase(text.find("  <config>"), text.find("</config>\n") + 10 - text.find("  <config>"));
  const std::string bare = testing::TempDir() + "/minsky-bare.xml";
  std::ofstream(bare) << text;
  const double unconfigured = plainSimGridTransfer(bare, cluster.hostName(1), cluster.hostName(6), bytes);
  ASSERT_GT(unconfigured, 0);
  EXPECT_GT(unconfigured, expected * 1.01);
  std::printf("1 GB from %s to %s: %.7f s from ddlsim's routes, %.7f s in plain SimGrid, %.7f s without <config>\n",
              cluster.hostName(1).c_str(), cluster.hostName(6).c_str(), expected, plain, unconfigured);
}

TEST(PlatformXml, PlainSimGridTimesATransferBetweenLeavesAsDdlsimDoes) {
  // Through both leaves' uplinks, oversubscribed 8:1 so that an uplink (2 nodes x 2 NICs x 12.5 GB/s / 8 =
  // 6.25 GB/s) is the narrowest link.
  Topology topology = shippedTopology("minsky-p100-ib-edr", 2);
  topology.network.oversubscription = 8;
  const Cluster cluster(topology, 20, Placement::Packed);
  const std::string path = testing::TempDir() + "/minsky-leaves.xml";
  {
    std::ofstream file(path);
    writeSimGridXml(file, cluster, SimulatedPlatform::kHostSpeed, 1024);
  }
  const double bytes = 1e9;
  const Rank from = 2;
  const Rank to = 17;  // node 4, under the third leaf
  const double expected = routeSeconds(cluster, from, to, bytes);
  ASSERT_LT(expected, 1.0) << "the uplink should carry 1 GB in well under a second";
  const double plain = plainSimGridTransfer(path, cluster.hostName(from), cluster.hostName(to), bytes);
  ASSERT_GT(plain, 0) << "plain_simgrid_transfer failed on " << path;
  EXPECT_NEAR(plain, expected, 1e-3 * expected);
  std::printf("1 GB from %s to %s across leaves: %.7f s from ddlsim's routes, %.7f s in plain SimGrid\n",
              cluster.hostName(from).c_str(), cluster.hostName(to).c_str(), expected, plain);
}

}  // namespace
}  // namespace ddl
