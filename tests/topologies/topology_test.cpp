// Topology files load, and the routes they give follow the hardware: NVLink between the GPUs of a socket,
// the X-bus between sockets, each GPU's nearest NIC between nodes, the core between leaves.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/invalid_argument.hpp"
#include "topologies/cluster.hpp"
#include "topologies/node_routes.hpp"
#include "topologies/platform_at_job_speed.hpp"

namespace ddl {
namespace {

std::string topologyFile(const std::string& name) { return std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json"; }

std::vector<std::string> linkNames(const Cluster& cluster, Rank from, Rank to) {
  std::vector<std::string> names;
  for (const RouteHop& hop : cluster.route(from, to)) names.push_back(cluster.link(hop.link).name + (hop.up ? "+" : "-"));
  return names;
}

TEST(Topology, EveryShippedFileLoadsAndConnectsEveryGpu) {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DDLSCALE_SOURCE_DIR) + "/topologies")) {
    if (entry.path().extension() != ".json") continue;
    const Topology topology = loadTopology(entry.path().string());
    // A node without NICs stands alone: its jobs fit on it.
    const int nodes = topology.nicsUsed > 0 ? 3 : 1;
    const Cluster cluster(topology, nodes * topology.node.gpus, Placement::Packed);
    for (Rank from = 0; from < cluster.hosts(); ++from)
      for (Rank to = 0; to < cluster.hosts(); ++to)
        EXPECT_TRUE(from == to || cluster.route(from, to).size() >= 3) << entry.path() << " " << from << " -> " << to;
  }
}

TEST(MinskyTopology, GpusOfASocketTalkOverTheirNvlink) {
  const Cluster cluster(loadTopology(topologyFile("minsky-p100-ib-edr")), 8, Placement::Packed);
  EXPECT_EQ(linkNames(cluster, 0, 1), (std::vector<std::string>{"n0-gpu0-port+", "n0-nvlink-gpu0-gpu1+", "n0-gpu1-port-"}));
  EXPECT_EQ(linkNames(cluster, 1, 0), (std::vector<std::string>{"n0-gpu1-port+", "n0-nvlink-gpu0-gpu1-", "n0-gpu0-port-"}));
}

TEST(MinskyTopology, GpusOfTwoSocketsCrossTheXbus) {
  const Cluster cluster(loadTopology(topologyFile("minsky-p100-ib-edr")), 4, Placement::Packed);
  EXPECT_EQ(linkNames(cluster, 1, 2), (std::vector<std::string>{"n0-gpu1-port+", "n0-nvlink-gpu1-cpu0+", "n0-xbus+",
                                                                  "n0-nvlink-gpu2-cpu1-", "n0-gpu2-port-"}));
}

TEST(MinskyTopology, EachGpuUsesTheNicOfItsSocket) {
  const Cluster cluster(loadTopology(topologyFile("minsky-p100-ib-edr")), 8, Placement::Packed);
  EXPECT_EQ(linkNames(cluster, 3, 7), (std::vector<std::string>{"n0-gpu3-port+", "n0-nvlink-gpu3-cpu1+", "n0-pcie-nic1+",
                                                                  "n0-nic1-cable+", "n1-nic1-cable-", "n1-pcie-nic1-",
                                                                  "n1-nvlink-gpu3-cpu1-", "n1-gpu3-port-"}));
}

TEST(MinskyTopology, WithOneNicTheSecondSocketReachesItOverTheXbus) {
  const Cluster cluster(loadTopology(topologyFile("minsky-p100-ib-edr"), {.nicsPerNode = 1}), 8, Placement::Packed);
  const auto route = linkNames(cluster, 2, 6);
  EXPECT_EQ(route[2], "n0-xbus-");
  EXPECT_EQ(route[4], "n0-nic0-cable+");
}

// A full node's GPUs leave it through every cabled NIC, so NCCL's channel count (two per NIC) is the same
// whether it is read from the NICs cabled or from those the GPUs use.
TEST(Topology, EveryShippedNodesGpusUseEveryCabledNic) {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DDLSCALE_SOURCE_DIR) + "/topologies")) {
    if (entry.path().extension() != ".json") continue;
    const Topology topology = loadTopology(entry.path().string());
    EXPECT_EQ(NodeRoutes(topology).nicsInUse(), topology.nicsUsed) << entry.path();
  }
}

// A job of one rank per node (mpirun -npernode 1, nccl-tests' one GPU per node) uses each node's first GPU:
// the other GPUs and their links go, the node's NICs and the fabric stay, and its one GPU leaves through
// its own NIC.
TEST(Topology, AJobOfOneGpuPerNodeSeesNodesOfTheirFirstGpu) {
  const Topology full = loadTopology(topologyFile("minsky-p100-ib-edr"));
  const Topology one = loadTopology(topologyFile("minsky-p100-ib-edr"), {.gpusPerNode = 1});
  EXPECT_EQ(one.node.gpus, 1);
  EXPECT_EQ(one.node.rankOrder, std::vector<int>{0});
  EXPECT_EQ(one.nicsUsed, full.nicsUsed);
  EXPECT_EQ(NodeRoutes(one).nicsInUse(), 1);
  for (const TopologyLink& link : one.node.links)
    for (const std::string& end : {link.from, link.to}) EXPECT_TRUE(end.rfind("gpu", 0) != 0 || end == "gpu0") << link.name;
  const Cluster cluster(one, 2, Placement::Packed);
  EXPECT_EQ(cluster.nodes(), 2);
  EXPECT_EQ(linkNames(cluster, 0, 1), (std::vector<std::string>{"n0-gpu0-port+", "n0-nvlink-gpu0-cpu0+", "n0-pcie-nic0+",
                                                                  "n0-nic0-cable+", "n1-nic0-cable-", "n1-pcie-nic0-",
                                                                  "n1-nvlink-gpu0-cpu0-", "n1-gpu0-port-"}));
  // Two of four: the first socket's pair, over their NVLink, and still its one NIC.
  const Topology two = loadTopology(topologyFile("minsky-p100-ib-edr"), {.gpusPerNode = 2});
  EXPECT_EQ(linkNames(Cluster(two, 4, Placement::Packed), 0, 1),
            (std::vector<std::string>{"n0-gpu0-port+", "n0-nvlink-gpu0-gpu1+", "n0-gpu1-port-"}));
  EXPECT_EQ(NodeRoutes(two).nicsInUse(), 1);
  try {
    loadTopology(topologyFile("minsky-p100-ib-edr"), {.gpusPerNode = 5});
    FAIL() << "5 GPUs of a node of 4 were taken";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "--gpus-per-node");
    EXPECT_EQ(error.message(), "5 ranks per node, but a node of minsky-p100-ib-edr has 4 GPUs");
  }
}

TEST(Cluster, NodesOnDifferentLeavesMeetInTheCore) {
  const Topology topology = loadTopology(topologyFile("minsky-p100-ib-edr"), {.nodesPerLeaf = 2});
  const Cluster cluster(topology, 16, Placement::Packed);
  const auto route = linkNames(cluster, 0, 8);  // node 0 (leaf 0) to node 2 (leaf 1)
  EXPECT_NE(std::find(route.begin(), route.end(), "leaf0-uplink+"), route.end());
  EXPECT_NE(std::find(route.begin(), route.end(), "leaf1-uplink-"), route.end());
  // Leaf uplinks carry a whole leaf's NIC capacity divided by the oversubscription.
  EXPECT_DOUBLE_EQ(cluster.link(cluster.route(0, 8)[4].link).bandwidthBps, 2 * 2 * 12.5e9);
}

TEST(Cluster, PlacesRanksPackedOrRoundRobin) {
  const Topology topology = loadTopology(topologyFile("bigbasin-p100-50gbe"));
  const Cluster packed(topology, 16, Placement::Packed);
  const Cluster spread(topology, 16, Placement::RoundRobin);
  EXPECT_EQ(packed.hostName(4), "n0-gpu7");  // rank order 0 1 2 3 7 6 5 4 keeps ring neighbours on NVLink
  EXPECT_EQ(packed.hostName(9), "n1-gpu1");
  EXPECT_EQ(spread.hostName(1), "n1-gpu0");
  EXPECT_EQ(spread.hostName(2), "n0-gpu1");
}

std::string faultyField(const std::string& json) {
  const std::string path = testing::TempDir() + "/topology.json";
  std::ofstream(path) << json;
  try {
    loadTopology(path);
  } catch (const InvalidArgument& error) {
    return error.field().substr(path.size() + 2);
  }
  return "(no error)";
}

TEST(SharedGpuTopology, RanksOnOneGpuMeetInItsMemory) {
  const Cluster cluster(loadTopology(topologyFile("h200-ranks-sharing-one-gpu")), 8, Placement::Packed);
  EXPECT_EQ(linkNames(cluster, 0, 5), (std::vector<std::string>{"n0-gpu0-port+", "n0-memory+", "n0-gpu5-port-"}));
  EXPECT_EQ(linkNames(cluster, 5, 0), (std::vector<std::string>{"n0-gpu5-port+", "n0-memory+", "n0-gpu0-port-"}));
  const RouteHop memory = cluster.route(0, 5)[1];
  EXPECT_EQ(cluster.link(memory.link).sharing, LinkSharing::BothDirections);
}

TEST(SharedGpuTopology, AJobMustFitOnItsOneNode) {
  const Topology topology = loadTopology(topologyFile("h200-ranks-sharing-one-gpu"));
  try {
    Cluster(topology, topology.node.gpus + 1, Placement::Packed);
    FAIL() << "a job larger than a NIC-less node was placed";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), topology.path + ": $.node.nics") << error.what();
  }
}

TEST(Topology, NamesTheFieldOfAnythingMalformed) {
  const std::string node = R"("node": {"gpu": "X", "gpus": 2, "devices": ["sw", "nic0"], "reduce_Bps": 1e11,
      "port": {"bandwidth_Bps": 1e11, "latency_s": 1e-6}, "nics": ["nic0"],
      "links": [{"name": "a", "between": ["gpu0", "sw"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                {"name": "b", "between": ["gpu1", "sw"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                {"name": "c", "between": ["sw", "nic0"], "bandwidth_Bps": 1e10, "latency_s": 1e-6}]})";
  const std::string network = R"("network": {"nic_bandwidth_Bps": 1e10, "nic_latency_s": 1e-6, "nodes_per_leaf": 4,
      "oversubscription": 1, "core_latency_s": 1e-6})";
  EXPECT_EQ(faultyField("{\"name\": \"t\", \"nics_used\": 1, " + node + ", " + network + "}"), "(no error)");
  EXPECT_EQ(faultyField("{\"name\": \"t\", " + node + "}"), "$.network");
  EXPECT_EQ(faultyField("{\"name\": \"t\", \"nics_used\": 2, " + node + ", " + network + "}"), "$.nics_used");
  EXPECT_EQ(faultyField("{\"name\": \"t\", \"colour\": 1, \"nics_used\": 1, " + node + ", " + network + "}"), "$.colour");
  std::string badLink = node;
  badLink.replace(badLink.find("\"gpu1\", \"sw\""), 12, "\"gpu9\", \"sw\"");
  EXPECT_EQ(faultyField("{\"name\": \"t\", \"nics_used\": 1, " + badLink + ", " + network + "}"), "$.node.links[1].between[0]");
  std::string cut = node;
  cut.replace(cut.find("\"gpu1\", \"sw\""), 12, "\"gpu1\", \"nic0\"");  // gpu1 would need to cross the NIC
  EXPECT_EQ(faultyField("{\"name\": \"t\", \"nics_used\": 1, " + cut + ", " + network + "}"), "(no error)");
  const std::string path = testing::TempDir() + "/topology.json";
  EXPECT_THROW(Cluster(loadTopology(path), 2, Placement::Packed), InvalidArgument);
  const std::string start = "{\"name\": \"t\", \"nics_used\": 1, " + node + ", " + network;
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 2, "throughput": 1.6}})"), "(no error)");
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 2, "throughput": 2.5}})"), "$.shared_host.throughput");
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 0}})"), "$.shared_host.cores");
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 2, "speed": 1}})"), "$.shared_host.speed");
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 2, "network_core_s_per_byte": 1.3e-8}})"), "(no error)");
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 2, "network_core_s_per_byte": -1e-9}})"),
            "$.shared_host.network_core_s_per_byte");
  EXPECT_EQ(faultyField(start + R"(, "shared_host": {"cores": 2, "network_core_s_per_byte": 0.5}})"),
            "$.shared_host.network_core_s_per_byte");
}

// A file of its own in a folder of its own, so that files based on others find them there.
std::string writeTopology(const std::string& folder, const std::string& name, const std::string& json) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / folder;
  std::filesystem::create_directories(dir);
  const std::string path = (dir / (name + ".json")).string();
  std::ofstream(path) << json;
  return path;
}

constexpr const char* kBaseTopology = R"({"name": "base", "nics_used": 1,
    "node": {"gpu": "X", "gpus": 2, "devices": ["sw", "nic0", "nic1"], "reduce_Bps": 1e11,
      "port": {"bandwidth_Bps": 1e11, "latency_s": 1e-6}, "nics": ["nic0", "nic1"],
      "links": [{"name": "a", "between": ["gpu0", "sw"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                {"name": "b", "between": ["gpu1", "sw"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                {"name": "c", "between": ["sw", "nic0"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                {"name": "d", "between": ["sw", "nic1"], "bandwidth_Bps": 1e10, "latency_s": 1e-6}]},
    "network": {"nic_bandwidth_Bps": 1e10, "nic_latency_s": 1e-6, "nodes_per_leaf": 4, "oversubscription": 1,
                "core_latency_s": 2e-7}})";

TEST(Topology, AFileBasedOnAnotherSaysOnlyWhatDiffers) {
  writeTopology("based", "base", kBaseTopology);
  const Topology base = loadTopology(writeTopology("based", "base", kBaseTopology));
  const Topology derived = loadTopology(writeTopology(
      "based", "derived", R"({"name": "derived", "based_on": "base", "nics_used": 2, "network": {"nic_latency_s": 5e-6}})"));
  EXPECT_EQ(derived.name, "derived");
  EXPECT_EQ(derived.nicsUsed, 2);
  EXPECT_EQ(derived.network.nicLatencySeconds, 5e-6);  // its own
  EXPECT_EQ(derived.network.nicBandwidthBps, base.network.nicBandwidthBps);  // the base's, member by member
  EXPECT_EQ(derived.network.coreLatencySeconds, base.network.coreLatencySeconds);
  EXPECT_EQ(derived.node.links.size(), base.node.links.size());
  EXPECT_EQ(derived.path, (std::filesystem::path(testing::TempDir()) / "based" / "derived.json").string());
  // The document with its base resolved stands alone: what ddlsim calibrate network writes its fit into.
  const nlohmann::json whole = topologyDocument(derived.path);
  EXPECT_FALSE(whole.contains("based_on"));
  EXPECT_EQ(whole["name"], "derived");
  EXPECT_EQ(whole["network"]["nic_latency_s"], 5e-6);
  EXPECT_EQ(whole["network"]["core_latency_s"], 2e-7);
  EXPECT_EQ(loadTopology(writeTopology("whole", "derived", whole.dump())).node.links.size(), base.node.links.size());
}

TEST(Topology, ABaseIsOneFileBesideItNotAChainNorItself) {
  writeTopology("bases", "base", kBaseTopology);
  writeTopology("bases", "middle", R"({"name": "middle", "based_on": "base"})");
  writeTopology("bases", "broken", R"({"name": "broken", "nics_used": 3, "node": {}})");
  const auto fault = [](const std::string& json) -> std::string {
    const std::string path = writeTopology("bases", "derived", json);
    try {
      loadTopology(path);
    } catch (const InvalidArgument& error) {
      return error.field().substr(error.field().find(".json: ") + 7) + " | " + error.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(fault(R"({"name": "d", "based_on": "base"})"), "(no error)");
  EXPECT_EQ(fault(R"({"name": "d", "based_on": "derived"})").substr(0, 12), "$.based_on |");
  EXPECT_NE(fault(R"({"name": "d", "based_on": "derived"})").find("based on itself"), std::string::npos);
  EXPECT_NE(fault(R"({"name": "d", "based_on": "middle"})").find("one level only"), std::string::npos);
  EXPECT_NE(fault(R"({"name": "d", "based_on": "nowhere"})").find("no topology file"), std::string::npos);
  EXPECT_NE(fault(R"({"name": "d", "based_on": "../based/base"})").find("same folder"), std::string::npos);
  EXPECT_NE(fault(R"({"name": "d", "based_on": ""})").find("same folder"), std::string::npos);
  EXPECT_EQ(fault(R"({"name": "d", "based_on": "base", "colour": 1})").substr(0, 9), "$.colour ");
  EXPECT_EQ(fault(R"({"name": "d", "based_on": "base", "network": {"nic_latency_s": -1}})").substr(0, 24),
            "$.network.nic_latency_s ");
  EXPECT_EQ(fault(R"({"name": "d", "based_on": "base", "network": {"latency": 1}})").substr(0, 20), "$.network.latency | ");
  // A fault of the two files together is named in this file, saying that it is read over its base.
  const std::string few = fault(R"({"name": "d", "based_on": "base", "node": {"gpu": "X", "gpus": 1, "devices": ["nic0"],
      "reduce_Bps": 1e11, "port": {"bandwidth_Bps": 1e11, "latency_s": 1e-6}, "nics": ["nic0"],
      "links": [{"name": "a", "between": ["gpu0", "nic0"], "bandwidth_Bps": 1e10, "latency_s": 1e-6}]}, "nics_used": 2})");
  EXPECT_EQ(few.substr(0, 12), "$.nics_used ") << few;
  EXPECT_NE(few.find("is read over its base base.json"), std::string::npos) << few;
  // The base's own faults name the base's file.
  try {
    loadTopology(writeTopology("bases", "derived", R"({"name": "d", "based_on": "broken"})"));
    FAIL() << "a broken base was read";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(error.field().find("broken.json"), std::string::npos) << error.field();
  }
}

TEST(Topology, CarryingBetweenNodesCostsTheSharedHostItsCoreSecondsInRanksWork) {
  // Two nodes of one rank each on a machine of 2 cores delivering 1.6 ranks: a core-second of carrying
  // displaces 0.8 s of one rank's compute. Within a node, or without a shared host, carrying is free.
  nlohmann::json json = nlohmann::json::parse(R"({"name": "t", "nics_used": 1,
      "node": {"gpu": "X", "gpus": 2, "devices": ["sw", "nic0"], "reduce_Bps": 1e11,
        "port": {"bandwidth_Bps": 1e11, "latency_s": 1e-6}, "nics": ["nic0"],
        "links": [{"name": "a", "between": ["gpu0", "sw"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                  {"name": "b", "between": ["gpu1", "sw"], "bandwidth_Bps": 1e10, "latency_s": 1e-6},
                  {"name": "c", "between": ["sw", "nic0"], "bandwidth_Bps": 1e10, "latency_s": 1e-6}]},
      "network": {"nic_bandwidth_Bps": 1e8, "nic_latency_s": 1e-6, "nodes_per_leaf": 4, "oversubscription": 1,
                  "core_latency_s": 0},
      "shared_host": {"cores": 2, "throughput": 1.6, "network_core_s_per_byte": 1e-8}})");
  const Cluster cluster(topologyFromJson(json, "t.json"), 4, Placement::Packed);
  EXPECT_DOUBLE_EQ(cluster.networkWorkSecondsPerByte(0, 2), 0.8e-8);
  EXPECT_DOUBLE_EQ(cluster.networkWorkSecondsPerByte(3, 1), 0.8e-8);
  EXPECT_EQ(cluster.networkWorkSecondsPerByte(0, 1), 0);
  json["shared_host"].erase("network_core_s_per_byte");
  EXPECT_EQ(Cluster(topologyFromJson(json, "t.json"), 4, Placement::Packed).networkWorkSecondsPerByte(0, 2), 0);
  json.erase("shared_host");
  EXPECT_EQ(Cluster(topologyFromJson(json, "t.json"), 4, Placement::Packed).networkWorkSecondsPerByte(0, 2), 0);
}

TEST(Topology, AJobAtItsOwnSpeedReducesAndCarriesAtItButKeepsItsLinks) {
  // A job 1.3 times as slow as the profile's does its host work 1.3 times as slow; a shaper's or a cable's
  // rate is no job's.
  nlohmann::json json = nlohmann::json::parse(R"({"name": "t", "nics_used": 1,
      "node": {"gpu": "X", "gpus": 1, "devices": ["nic0"], "reduce_Bps": 4e9,
        "port": {"bandwidth_Bps": 1e11, "latency_s": 1e-6}, "nics": ["nic0"],
        "links": [{"name": "a", "between": ["gpu0", "nic0"], "bandwidth_Bps": 1e10, "latency_s": 1e-6}]},
      "network": {"nic_bandwidth_Bps": 1e8, "nic_latency_s": 1e-6, "nodes_per_leaf": 4, "oversubscription": 1,
                  "core_latency_s": 0},
      "shared_host": {"cores": 2, "throughput": 1.6, "network_core_s_per_byte": 1e-8}})");
  const Cluster cluster(topologyFromJson(json, "t.json"), 2, Placement::Packed);
  const PlatformAtJobSpeed slower(cluster, 1.3);
  EXPECT_DOUBLE_EQ(slower.reduceSecondsPerByte(1), 1.3 / 4e9);
  EXPECT_DOUBLE_EQ(slower.networkWorkSecondsPerByte(0, 1), 1.3 * 0.8e-8);
  for (const RouteHop& hop : cluster.route(0, 1)) {
    EXPECT_EQ(slower.link(hop.link).bandwidthBps, cluster.link(hop.link).bandwidthBps);
    EXPECT_EQ(slower.link(hop.link).latencySeconds, cluster.link(hop.link).latencySeconds);
  }
  EXPECT_EQ(slower.sharedComputeThroughput(), cluster.sharedComputeThroughput()) << "its share of the cores is the same";
}

TEST(Topology, ASharedHostDeliversItsCoresUnlessAThroughputIsMeasured) {
  nlohmann::json json = nlohmann::json::parse(R"({"name": "t", "node": {"gpu": "X", "gpus": 1, "devices": [],
      "reduce_Bps": 1e9, "port": {"bandwidth_Bps": 1e11, "latency_s": 0}, "links": [], "nics": []},
      "shared_host": {"cores": 2}})");
  EXPECT_EQ(Cluster(topologyFromJson(json, "t.json"), 1, Placement::Packed).sharedComputeThroughput(), 2.0);
  json["shared_host"]["throughput"] = 1.57;
  EXPECT_EQ(Cluster(topologyFromJson(json, "t.json"), 1, Placement::Packed).sharedComputeThroughput(), 1.57);
  json.erase("shared_host");
  EXPECT_EQ(Cluster(topologyFromJson(json, "t.json"), 1, Placement::Packed).sharedComputeThroughput(), std::nullopt);
}

}  // namespace
}  // namespace ddl
