#include "topologies/topology.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"

namespace ddl {
namespace {

constexpr double kMaxBandwidth = 1e15;
constexpr double kMaxLatency = 1;

NodeTopology readNode(const JsonReader& reader, const nlohmann::json& json) {
  reader.allowOnly(json, {"gpu", "gpus", "devices", "links", "nics", "rank_order", "port", "reduce_Bps", "shared_memory",
                          "gpu_memory_bytes", "multicast_switch"});
  NodeTopology node;
  node.gpuModel = reader.stringAt(json, "gpu");
  node.gpus = static_cast<int>(reader.integerAt(json, "gpus", 1, 1024));
  node.reduceBps = reader.numberAt(json, "reduce_Bps", 1e6, kMaxBandwidth);
  if (reader.has(json, "gpu_memory_bytes")) node.gpuMemoryBytes = reader.numberAt(json, "gpu_memory_bytes", 1e6, 1e15);

  const JsonReader port = reader.at("port");
  const auto& portJson = reader.member(json, "port");
  port.allowOnly(portJson, {"bandwidth_Bps", "latency_s"});
  node.portBandwidthBps = port.numberAt(portJson, "bandwidth_Bps", 1e6, kMaxBandwidth);
  node.portLatencySeconds = port.numberAt(portJson, "latency_s", 0, kMaxLatency);
  if (reader.has(json, "shared_memory")) {
    const JsonReader memory = reader.at("shared_memory");
    const auto& memoryJson = json["shared_memory"];
    memory.allowOnly(memoryJson, {"bandwidth_Bps", "latency_s"});
    node.sharedMemory = NodeTopology::SharedMemory{memory.numberAt(memoryJson, "bandwidth_Bps", 1e6, kMaxBandwidth),
                                                   memory.numberAt(memoryJson, "latency_s", 0, kMaxLatency)};
  }

  std::set<std::string> names;
  for (int gpu = 0; gpu < node.gpus; ++gpu) names.insert(NodeTopology::gpuName(gpu));
  const JsonReader devices = reader.at("devices");
  const auto& deviceList = devices.array(reader.member(json, "devices"));
  for (std::size_t i = 0; i < deviceList.size(); ++i) {
    const std::string name = devices.at(i).string(deviceList[i]);
    if (!names.insert(name).second) devices.at(i).fail("'" + name + "' is named twice (GPUs are gpu0, gpu1, ...)");
    node.devices.push_back(name);
  }

  const JsonReader links = reader.at("links");
  const auto& linkList = links.array(reader.member(json, "links"));
  std::set<std::string> linkNames;
  for (std::size_t i = 0; i < linkList.size(); ++i) {
    const JsonReader link = links.at(i);
    link.allowOnly(linkList[i], {"name", "between", "bandwidth_Bps", "latency_s"});
    TopologyLink parsed;
    parsed.name = link.stringAt(linkList[i], "name");
    if (!linkNames.insert(parsed.name).second) link.at("name").fail("'" + parsed.name + "' is named twice");
    // A name goes into SimGrid's platform file, whose XML cannot hold control characters in any form.
    if (std::any_of(parsed.name.begin(), parsed.name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      link.at("name").fail("holds a control character: a link's name is printable text");
    const JsonReader between = link.at("between");
    const auto& ends = between.array(link.member(linkList[i], "between"));
    if (ends.size() != 2) between.fail("expected the two devices the link joins");
    parsed.from = between.at(0).string(ends[0]);
    parsed.to = between.at(1).string(ends[1]);
    for (std::size_t end = 0; end < 2; ++end)
      if (!names.count(end == 0 ? parsed.from : parsed.to)) between.at(end).fail("no such device");
    if (parsed.from == parsed.to) between.fail("a link joins two different devices");
    parsed.bandwidthBps = link.numberAt(linkList[i], "bandwidth_Bps", 1e3, kMaxBandwidth);
    parsed.latencySeconds = link.numberAt(linkList[i], "latency_s", 0, kMaxLatency);
    node.links.push_back(parsed);
  }

  const JsonReader nics = reader.at("nics");
  const auto& nicList = nics.array(reader.member(json, "nics"));
  for (std::size_t i = 0; i < nicList.size(); ++i) {
    const std::string name = nics.at(i).string(nicList[i]);
    if (!std::count(node.devices.begin(), node.devices.end(), name)) nics.at(i).fail("'" + name + "' is not a device");
    if (std::count(node.nics.begin(), node.nics.end(), name)) nics.at(i).fail("'" + name + "' is listed twice");
    node.nics.push_back(name);
  }

  if (reader.has(json, "multicast_switch")) {
    const JsonReader multicast = reader.at("multicast_switch");
    node.multicastSwitch = multicast.string(json["multicast_switch"]);
    if (!std::count(node.devices.begin(), node.devices.end(), node.multicastSwitch))
      multicast.fail("'" + node.multicastSwitch + "' is not a device");
    if (std::count(node.nics.begin(), node.nics.end(), node.multicastSwitch))
      multicast.fail("'" + node.multicastSwitch + "' is a NIC, not a switch between the GPUs");
  }

  const JsonReader order = reader.at("rank_order");
  if (reader.has(json, "rank_order")) {
    const auto& list = order.array(json["rank_order"]);
    for (std::size_t i = 0; i < list.size(); ++i)
      node.rankOrder.push_back(static_cast<int>(order.at(i).integer(list[i], 0, node.gpus - 1)));
    std::vector<int> sorted = node.rankOrder;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == static_cast<std::size_t>(node.gpus);
    for (std::size_t i = 0; permutation && i < sorted.size(); ++i) permutation = sorted[i] == static_cast<int>(i);
    if (!permutation) order.fail("expected each of gpu 0 .. " + std::to_string(node.gpus - 1) + " once");
  } else {
    for (int gpu = 0; gpu < node.gpus; ++gpu) node.rankOrder.push_back(gpu);
  }
  return node;
}

NetworkTopology readNetwork(const JsonReader& reader, const nlohmann::json& json) {
  reader.allowOnly(json, {"nic_bandwidth_Bps", "nic_latency_s", "device_latency_s", "nodes_per_leaf", "oversubscription",
                          "core_latency_s"});
  NetworkTopology network;
  network.nicBandwidthBps = reader.numberAt(json, "nic_bandwidth_Bps", 1e3, kMaxBandwidth);
  network.nicLatencySeconds = reader.numberAt(json, "nic_latency_s", 0, kMaxLatency);
  if (reader.has(json, "device_latency_s")) network.deviceLatencySeconds = reader.numberAt(json, "device_latency_s", 0, kMaxLatency);
  network.nodesPerLeaf = static_cast<int>(reader.integerAt(json, "nodes_per_leaf", 1, 1 << 20));
  network.oversubscription = reader.numberAt(json, "oversubscription", 1, 1000);
  network.coreLatencySeconds = reader.numberAt(json, "core_latency_s", 0, kMaxLatency);
  return network;
}

// A file that names another as its base (`"based_on": "dgx-h100-ndr"`, the file of that name beside it) says
// only what differs: its own name, and any of node, nics_used and shared_host, which replace the base's,
// and network, whose members replace the base's one by one. One level: a base has no base of its own, so a
// reader sees every number in one of two files.
nlohmann::json onItsBase(const nlohmann::json& json, const std::string& path) {
  const JsonReader root(path);
  root.allowOnly(json, {"name", "based_on", "node", "network", "nics_used", "shared_host"});
  const std::string base = root.stringAt(json, "based_on");
  if (base.empty() || base.find_first_of("/\\") != std::string::npos || base == "." || base == "..")
    root.at("based_on").fail("the name of a topology file in the same folder is required, not '" + base + "'");
  const std::filesystem::path basePath = std::filesystem::path(path).parent_path() / (base + ".json");
  if (basePath.lexically_normal() == std::filesystem::path(path).lexically_normal())
    root.at("based_on").fail("a topology cannot be based on itself");
  std::error_code unreadable;  // a name too long for the file system, a folder not to be read: no file either
  if (!std::filesystem::is_regular_file(basePath, unreadable))
    root.at("based_on").fail("no topology file " + basePath.string());
  nlohmann::json merged = readJsonFile(basePath.string());
  if (merged.is_object() && merged.contains("based_on"))
    root.at("based_on").fail(basePath.string() + " is itself based on another topology: one level only");
  topologyFromJson(merged, basePath.string());  // the base's own faults are named in the base's file
  for (const auto& [key, value] : json.items()) {
    if (key == "based_on") continue;
    if (key == "network" && value.is_object() && merged[key].is_object()) {
      for (const auto& [member, number] : value.items()) merged[key][member] = number;
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

}  // namespace

nlohmann::json topologyDocument(const std::string& path) {
  const nlohmann::json json = readJsonFile(path);
  return json.is_object() && json.contains("based_on") ? onItsBase(json, path) : json;
}

Topology loadTopology(const std::string& path, const TopologyOverrides& overrides) {
  const nlohmann::json json = readJsonFile(path);
  if (!json.is_object() || !json.contains("based_on")) return topologyFromJson(json, path, overrides);
  try {
    return topologyFromJson(onItsBase(json, path), path, overrides);
  } catch (const InvalidArgument& error) {
    // A fault of the two files together (a node of the file's own against the base's nics_used) is named at
    // its field in this file, which may hold the field only through its base: say so.
    if (error.field().rfind(path + ": $.", 0) != 0 || error.field() == path + ": $.based_on") throw;
    throw InvalidArgument(error.field(), error.message() + " (" + path + " is read over its base " +
                                             json["based_on"].get<std::string>() + ".json, which gives what it does not)");
  }
}

Topology topologyFromJson(const nlohmann::json& json, const std::string& path, const TopologyOverrides& overrides) {
  const JsonReader root(path);
  root.allowOnly(json, {"name", "node", "network", "nics_used", "shared_host"});
  Topology topology;
  topology.path = path;
  topology.name = root.stringAt(json, "name");
  topology.node = readNode(root.at("node"), root.member(json, "node"));
  const auto nics = static_cast<std::int64_t>(topology.node.nics.size());
  if (nics == 0) {
    // A node without NICs (one GPU server on its own): jobs fit on one node, and need no network.
    if (root.has(json, "network")) topology.network = readNetwork(root.at("network"), json["network"]);
    topology.nicsUsed = root.has(json, "nics_used") ? static_cast<int>(root.integerAt(json, "nics_used", 0, 0)) : 0;
  } else {
    topology.network = readNetwork(root.at("network"), root.member(json, "network"));
    topology.nicsUsed = static_cast<int>(root.integerAt(json, "nics_used", 1, nics));
  }
  if (root.has(json, "shared_host")) {
    const JsonReader at = root.at("shared_host");
    const nlohmann::json& host = root.member(json, "shared_host");
    at.allowOnly(host, {"cores", "throughput", "network_core_s_per_byte"});
    SharedHost shared;
    shared.cores = static_cast<int>(at.integerAt(host, "cores", 1, 1 << 20));
    shared.throughput = at.has(host, "throughput") ? at.numberAt(host, "throughput", 1e-3, shared.cores) : shared.cores;
    // Up to a microsecond of a core per byte: a machine that carries 1 MB/s per core, far slower than any seen.
    if (at.has(host, "network_core_s_per_byte")) shared.networkCoreSecondsPerByte = at.numberAt(host, "network_core_s_per_byte", 0, 1e-6);
    topology.sharedHost = shared;
  }
  if (overrides.nicsPerNode) {
    if (overrides.nicsPerNode > static_cast<int>(topology.node.nics.size()))
      throw InvalidArgument(overrides.nicsPerNodeField, std::to_string(overrides.nicsPerNode) + " NICs, but a node of " + path +
                                                            " has " + std::to_string(topology.node.nics.size()));
    topology.nicsUsed = overrides.nicsPerNode;
  }
  if (overrides.nodesPerLeaf) topology.network.nodesPerLeaf = overrides.nodesPerLeaf;
  if (overrides.oversubscription) topology.network.oversubscription = overrides.oversubscription;
  if (overrides.gpusPerNode) topology = withGpusPerNode(std::move(topology), overrides.gpusPerNode, overrides.gpusPerNodeField);
  return topology;
}

Topology withGpusPerNode(Topology topology, int gpus, const std::string& field) {
  NodeTopology& node = topology.node;
  if (gpus < 1 || gpus > node.gpus)
    throw InvalidArgument(field, std::to_string(gpus) + " ranks per node, but a node of " + topology.name + " has " +
                                     std::to_string(node.gpus) + " GPUs");
  if (gpus == node.gpus) return topology;
  // Another cluster than the file's: named so, so that what records a topology by name (tuning tables,
  // results) does not take one for the other.
  topology.name += " (" + std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs") + " per node)";
  const auto removedGpu = [&](const std::string& device) {
    for (int g = gpus; g < node.gpus; ++g)
      if (device == NodeTopology::gpuName(g)) return true;
    return false;
  };
  std::erase_if(node.links, [&](const TopologyLink& link) { return removedGpu(link.from) || removedGpu(link.to); });
  std::erase_if(node.rankOrder, [&](int gpu) { return gpu >= gpus; });
  node.gpus = gpus;
  return topology;
}

}  // namespace ddl
