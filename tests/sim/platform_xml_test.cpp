// The SimGrid platform file ddlsim exports is the cluster ddlsim simulates: loaded into SimGrid, a message
// between two GPUs of different nodes takes the route's latency plus its size over its narrowest link.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

#include "sim/platform_xml.hpp"
#include "sim/simulated_platform.hpp"
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

}  // namespace
}  // namespace ddl
