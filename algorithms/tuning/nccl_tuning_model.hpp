#pragma once
// NCCL's own choice of how to run an allreduce, a reduce-scatter or an all-gather, as its tuning model makes it (NVIDIA/nccl v2.23.4-1, read:
// src/graph/tuning.cc for each algorithm and protocol's latency and bandwidth, src/enqueue.cc for the
// fastest and then for how many channels a size needs), over what ddlsim models of NCCL: its ring
// (nccl-ring) and its tree (nccl-tree, allreduce only) over channels, each under Simple, LL or LL128, and
// its NVLS allreduce on one node (nccl-nvls, Simple only) and NVLS-tree across nodes (nccl-nvls-tree) where the
// job says NCCL may run them. NCCL also weighs CollNet, NVLS for reduce-scatter and all-gather, and PAT for them
// with one GPU per node, which
// ddlsim does not model yet: there its choice is the ring or tree NCCL would weigh beside them.
//
// The model's inputs are what NCCL learns of the system: ranks, nodes, whether a node's GPUs talk over
// NVLink, the GPU generation and its channels. One is estimated: the bus bandwidth NCCL's ring search
// credits its channels with, which ddlsim takes from the topology (NcclJob::ringBusBandwidthBps), and
// NCCL's tree is credited with the same, as its search finds trees over the same links.

#include <cstdint>
#include <optional>
#include <string>

#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/tuning/nccl_protocol.hpp"

namespace ddl {

struct NcclJob {
  int ranks = 1;
  int nodes = 1;
  NcclHardware intraNode = NcclHardware::PCI;  // NVLink where a node's GPUs reach each other over NVLink
  int computeCapability = 0;                  // 60 P100, 70 V100, 80 A100, 90 H100 and H200; 0 unknown
  int channels = 1;                           // NCCL's ring channels on this system
  // What NCCL's rings over all channels carry under Simple, as nccl-tests' busbw: the narrower of a node's
  // GPU-to-GPU path and, across nodes, all its NICs together.
  double ringBusBandwidthBps = 0;
  // Whether NCCL runs NVLS here (on one node) or NVLS-tree (across nodes) and ddlsim can simulate it: an
  // NVSwitch with multicast (the topology's multicast_switch), compute capability 9.0 or later, and a caller
  // that can place the switches (ddlsim collective and training iterations, not a runtime). Then what NCCL
  // credits each GPU's NVLink to the switch with, per direction, which sizes its NVLS channels, and across
  // nodes the network each head GPU leaves its node through (its NICs), which sizes NVLS-tree's.
  bool nvls = false;
  double nvlinkBandwidthBps = 0;
  double nvlsHeadNetworkBandwidthBps = 0;

  int ranksPerNode() const { return ranks / nodes; }
};

enum class NcclAlgorithm : std::uint8_t { Ring, Tree, Nvls, NvlsTree };

struct NcclChoice {
  AlgorithmChoice algorithm;  // nccl-ring, nccl-tree, nccl-nvls or nccl-nvls-tree with the channels NCCL would use here
  NcclAlgorithm ncclAlgorithm = NcclAlgorithm::Ring;
  Protocol protocol = Protocol::Simple;
  double modelSeconds = 0;  // NCCL's own estimate of the time

  // "nccl-ring 16 channels, 8 per node, simple"
  std::string label() const;
};

// NCCL's estimate of a collective of `bytes` by its ring under `protocol` on all the job's channels
// (ncclTopoGetAlgoTime): latency + bytes / bandwidth. `bytes` is the whole buffer, as NCCL and nccl-tests
// count it (a reduce-scatter's input, an all-gather's output). Infinite where NCCL would not enable the
// protocol.
double ncclRingModelSeconds(const NcclJob& job, Protocol protocol, double bytes,
                            CollectiveKind kind = CollectiveKind::Allreduce);
// The same for NCCL's tree (intra-node chain, inter-node double binary tree); infinite on one rank.
double ncclTreeModelSeconds(const NcclJob& job, Protocol protocol, double bytes);
// The same for NVLS (an allreduce on one node, under Simple only): NCCL's latency of 25 us, and its NVLS search's
// bandwidth: one channel per GPU, each at the fastest of Hopper's intra-node speeds whose traffic fits every
// GPU's NVLink (the channel's own GPU counted twice: (ranks + 1) x speed), times 5/6. Infinite where the job
// has no NVLS, for another collective or protocol, or on one rank.
double ncclNvlsModelSeconds(const NcclJob& job, Protocol protocol, double bytes, CollectiveKind kind = CollectiveKind::Allreduce);
// The same for NVLS-tree (an allreduce across nodes, under Simple only): NCCL's latency of 25 us within the node
// and 14 us per network hop of the tree, twice over its depth; and its NVLS search's bandwidth across nodes:
// one channel per head GPU (every GPU of a node), each at the fastest of Hopper's network speeds whose
// traffic fits every GPU's NVLink ((ranks per node + 1) x speed) and the head's network, the network's speed
// raised while the head's network carries it and it stays under twice that (search.cc's second pass); halved
// beyond two nodes, where a tree's inner node carries its two children's traffic; times 5/6. Infinite where
// the job has no NVLS, on one node, for another collective or protocol.
double ncclNvlsTreeModelSeconds(const NcclJob& job, Protocol protocol, double bytes, CollectiveKind kind = CollectiveKind::Allreduce);
// The channels NCCL's NVLS kernels run on (NCCL_NVLS_NCHANNELS, src/transport/nvls.cc): 16.
constexpr int kNcclNvlsChannels = 16;
// Whether NCCL enables LL128 on this job by default (Volta, Ampere and Hopper over NVLink); LL and Simple
// always.
bool ncclEnables(const NcclJob& job, Protocol protocol);
// NCCL's channels for `bytes` by `algorithm` under `protocol`: all of the job's, fewer where each would have
// less than its threads' threshold of work (src/enqueue.cc).
int ncclChannelsFor(const NcclJob& job, NcclAlgorithm algorithm, Protocol protocol, double bytes);

// The fastest of ring, tree, NVLS and NVLS-tree (an allreduce's; the ring alone for the others) by NCCL's model, among
// every protocol NCCL enables, or only `forced` (as NCCL_PROTO forces one). InvalidArgument("ranks", ...) for a
// job whose nodes do not hold its ranks evenly.
NcclChoice ncclChoice(const NcclJob& job, CollectiveKind kind, double bytes, std::optional<Protocol> forced = std::nullopt);

}  // namespace ddl
