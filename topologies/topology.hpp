#pragma once
// A cluster as a topology file (topologies/*.json) describes it: one node's devices and links (GPUs,
// CPU sockets, switches, NICs; NVLink, X-bus, PCIe), how messages enter and leave a GPU, and the
// network between nodes (NIC rate, leaves of a two-level fat tree, oversubscription). See README.md.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ddl {

struct TopologyLink {
  std::string name;
  std::string from;  // the direction the link calls "up"
  std::string to;
  double bandwidthBps = 0;  // per direction: links are full duplex
  double latencySeconds = 0;
};

struct NodeTopology {
  std::string gpuModel;
  int gpus = 0;                       // devices gpu0 .. gpu(n-1)
  std::vector<std::string> devices;   // everything else: cpu0, switch0, nic0, ...
  std::vector<TopologyLink> links;
  std::vector<std::string> nics;      // in order of preference; the first nicsUsed are cabled (none: one node only)
  std::vector<int> rankOrder;         // local rank i runs on gpu rankOrder[i]
  // Every message enters and leaves a GPU through its port: the communication library's per-message
  // latency and the GPU's copy bandwidth.
  double portBandwidthBps = 0;
  double portLatencySeconds = 0;
  // Throughput of an element-wise sum on the GPU, in bytes of the reduced buffer per second (γ = 1/this).
  double reduceBps = 0;
  // Each GPU's memory, bytes: what a rank's model states must fit in. 0 where the file does not say, and
  // then nothing is checked against it.
  double gpuMemoryBytes = 0;
  // Set where the node's "GPUs" are ranks sharing one physical GPU (the CUDA peer transport on one GPU):
  // a message between them is a copy within that GPU's memory, and every such copy, and every rank's
  // reduction, shares this one bandwidth (bytes copied per second), whichever way it goes.
  struct SharedMemory {
    double bandwidthBps = 0;
    double latencySeconds = 0;
  };
  std::optional<SharedMemory> sharedMemory;
  // The device that reduces in the network where GPUs load and store through its multicast address (an
  // NVSwitch with NVLS, Hopper and later): algorithms that reduce in a switch (nccl-nvls) run only where this
  // is set. Empty: the node's switches only forward.
  std::string multicastSwitch;

  static std::string gpuName(int gpu) { return "gpu" + std::to_string(gpu); }
};

struct NetworkTopology {
  double nicBandwidthBps = 0;    // per direction
  double nicLatencySeconds = 0;  // NIC, cable and leaf switch
  // The network device's own latency at each NIC, on top of nicLatencySeconds, which no protocol shortens:
  // NCCL's tuning model scales its per-hop cost by protocol but adds a network's own latency (latencyInter,
  // what the net plugin reports) to each network hop unscaled (src/graph/tuning.cc; under Simple twice, for
  // a flush, which is not modelled). 0 for InfiniBand and RoCE, whose plugin reports none.
  double deviceLatencySeconds = 0;
  int nodesPerLeaf = 1;
  double oversubscription = 1;   // leaf downlink capacity over uplink capacity
  double coreLatencySeconds = 0; // leaf up to the core and back down
};

// Every node on one machine, computing on its cores (an emulated cluster): how many cores, and what they deliver
// with all of them busy, in one rank's compute speeds alone (at most `cores`: ranks running side by side
// contend for memory and caches too, which a measurement says).
struct SharedHost {
  int cores = 0;
  double throughput = 0;
  // Core-seconds of the machine's work per byte carried from one node to another: the sender's and the
  // receiver's TCP stacks and whatever forwards the frames between them (an emulated cluster's bridge) run on
  // the cores the ranks compute on. 0: carrying costs the cores nothing.
  double networkCoreSecondsPerByte = 0;
};

struct Topology {
  std::string name;
  std::string path;
  NodeTopology node;
  NetworkTopology network;
  int nicsUsed = 1;
  std::optional<SharedHost> sharedHost;
};

// What a scenario may change in a topology; unset fields keep the file's values.
struct TopologyOverrides {
  int nicsPerNode = 0;
  int nodesPerLeaf = 0;
  double oversubscription = 0;
  // Where nicsPerNode was given, for the error if the node has fewer NICs: a flag, or a scenario's field.
  std::string nicsPerNodeField = "--nics-per-node";
  // Use only the first this many GPUs of each node by index (withGpusPerNode), as a job of that many ranks per
  // node whose local rank i runs on GPU i; 0: all of them.
  int gpusPerNode = 0;
  std::string gpusPerNodeField = "--gpus-per-node";
};

// The node cut to its first `gpus` GPUs (by index), as a job that runs that many ranks on each node sees it:
// the links to the others go, and so do they from rank_order (whose order among the kept GPUs stays); NICs,
// switches and the network stay. Named "NAME (K GPUs per node)" where it cuts any GPU, since it is another
// cluster. Throws InvalidArgument naming `field` if the node has fewer GPUs.
Topology withGpusPerNode(Topology topology, int gpus, const std::string& field);

// Throws InvalidArgument naming the file and JSON path of anything malformed or inconsistent. A file with
// `based_on` is read over the topology file of that name in its own folder (topologies/README.md).
Topology loadTopology(const std::string& path, const TopologyOverrides& overrides = {});
// A topology file's document as loadTopology reads it: with its base resolved where it names one, so a
// standalone topology (what ddlsim calibrate network writes its fit into).
nlohmann::json topologyDocument(const std::string& path);
// The same from a parsed document, which cannot name a base (no folder to find it in); `path` names it in
// errors.
Topology topologyFromJson(const nlohmann::json& json, const std::string& path, const TopologyOverrides& overrides = {});

}  // namespace ddl
