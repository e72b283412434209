// The SimGrid platform file ddlsim exports is the cluster ddlsim simulates: loaded into SimGrid, a message
// between two GPUs of different nodes takes the route's latency plus its size over its narrowest link.

#include <fstream>

#include <gtest/gtest.h>
#include <simgrid/s4u.hpp>

#include "sim/platform_xml.hpp"
#include "sim/simulated_platform.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {
namespace sg4 = simgrid::s4u;

TEST(PlatformXml, LoadsIntoSimGridWithTheSameRoutes) {
  const Cluster cluster(loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/minsky-p100-ib-edr.json"), 8,
                        Placement::Packed);
  const std::string path = testing::TempDir() + "/minsky.xml";
  {
    std::ofstream file(path);
    writeSimGridXml(file, cluster, SimulatedPlatform::kHostSpeed, 1024);
  }
  double latency = 0;
  double bandwidth = 1e300;
  for (const RouteHop& hop : cluster.route(1, 6)) {
    latency += cluster.link(hop.link).latencySeconds;
    bandwidth = std::min(bandwidth, cluster.link(hop.link).bandwidthBps);
  }

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
  EXPECT_NEAR(arrived - start, latency + bytes / bandwidth, 1e-12);
}

}  // namespace
}  // namespace ddl
