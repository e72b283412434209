#pragma once
// NCCL's three protocols, as its tuning model costs them (NVIDIA/nccl src/graph/tuning.cc, v2.23.4-1, read;
// docs/reference/README.md), for running a collective "as NCCL would with NCCL_PROTO=...":
//
// - Simple: the data itself, with a flag after each chunk. What every topology's latencies are calibrated
//   to (topologies/README.md), so Simple changes nothing on a link.
// - LL (low latency): each 8-byte store carries 4 bytes of data and a 4-byte flag, so a receiver polls the
//   data itself: per-hop latency falls to a sixth, and links carry half as much data.
// - LL128: the same with 128-byte lines of 120 bytes of data and 8 of flag, which needs NVLink's ordering:
//   0.92 of the bandwidth, latencies between the other two.
//
// Under a protocol (sim/engine/platform_under_protocol.hpp) each link's latency is scaled by the protocol's
// per-hop latency over the ring's Simple one on the link's hardware (NVLink, PCI or network: NCCL's hwLat; the
// Tree row for NCCL's tree, and for network hops where a node holds one rank, as NCCL's model has it), every
// link's bandwidth by the protocol's share, and its base latency (NCCL's Ring baseLat: launching the kernel
// and the first synchronisation) is added once per collective. NCCL's caps on LL and LL128 bandwidth
// (llMaxBws, perChMaxRingLL128Bws), which depend on the GPU generation, CPU and node count, are not applied
// to the links: LL at large sizes is optimistic by up to their ratio, a size at which NCCL never picks LL.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ddl {

enum class Protocol : std::uint8_t { Simple, LL, LL128 };

// The hardware NCCL's tuning model tells apart (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
enum class NcclHardware : std::uint8_t { NVLink, PCI, Network };

// "simple", "ll", "ll128": as NCCL_PROTO spells them, in lower case.
std::string_view toString(Protocol protocol);
// Case-insensitive, as NCCL_PROTO. Throws InvalidArgument(field, ...) naming the ones that exist.
Protocol parseProtocol(std::string_view name, const std::string& field);
const std::vector<Protocol>& allProtocols();

struct ProtocolCosts {
  double bandwidthShare = 1;       // of a link's bandwidth that carries data
  double baseLatencySeconds = 0;   // once per collective
  // Ring's per-hop latency on each hardware (NCCL's hwLat), in seconds.
  double nvlinkHopSeconds = 0;
  double pciHopSeconds = 0;
  double networkHopSeconds = 0;

  double hopSeconds(NcclHardware hardware) const;
  // Per-hop latency over Simple's on the same hardware: what a link's latency is scaled by.
  double latencyRatio(NcclHardware hardware) const;
};

// NCCL's ring's costs under `protocol` (Ring's hwLat and baseLat).
ProtocolCosts costsOf(Protocol protocol);

// Which of NCCL's rows of per-hop and base latencies an algorithm is costed by: its ring's (nccl-ring and every
// algorithm not NCCL's own), or its tree's (nccl-tree).
enum class NcclLatencyRow : std::uint8_t { Ring, Tree };
// The costs of `row` under `protocol`; where the job has one rank per node, network hops cost the tree's, as
// NCCL's model charges them for every algorithm there ("With ppn=1 latencies are fully exposed, use the Tree
// network latency", src/graph/tuning.cc). The bandwidth shares are the ring's: NCCL caps its tree's LL and
// LL128 bandwidth per channel, not per link.
ProtocolCosts costsOf(Protocol protocol, NcclLatencyRow row, bool onePerNode);

}  // namespace ddl
