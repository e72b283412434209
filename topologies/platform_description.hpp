#pragma once
// What a network simulator needs to know of a platform, independent of the simulator: one host per rank,
// full-duplex links, and the route of links a message from one rank to another crosses. Both the clusters
// built from topology files and the idealised one-link-per-pair platform of the tests describe themselves
// this way; sim/ turns a description into SimGrid zones, and `ddlsim platform --xml` into SimGrid XML.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/rank.hpp"

namespace ddl {

using LinkId = std::int64_t;

struct RouteHop {
  LinkId link;
  bool up;  // crossed in the direction the link was declared (split-duplex links have one of each)
};

// How the messages crossing a link share its bandwidth.
enum class LinkSharing : std::uint8_t {
  // Full duplex: each direction is shared by the messages crossing the link that way (NVLink, PCIe, NICs).
  PerDirection,
  // One bandwidth for all messages, whichever way they go: a GPU's memory, which every copy within the
  // GPU reads and writes.
  BothDirections,
  // Every message gets the full bandwidth: the no-contention assumption of the α-β model.
  None,
};

// What a link is made of, as NCCL's tuning model tells hardware apart (NVLink, PCI, network): a
// communication protocol's per-hop latency depends on it (algorithms/tuning/nccl_protocol.hpp).
enum class LinkHardware : std::uint8_t {
  NVLink,
  PCIe,  // and every other path inside a node that is not NVLink: CPU sockets' links, a GPU's own memory
  Network,
};

struct PlatformLink {
  std::string name;
  double bandwidthBps = 0;  // per direction (for BothDirections: in all)
  double latencySeconds = 0;
  LinkSharing sharing = LinkSharing::PerDirection;
  LinkHardware hardware = LinkHardware::PCIe;
  // The part of latencySeconds that is a device's own and that a communication protocol does not shorten
  // (a network device's latency: NetworkTopology::deviceLatencySeconds); the rest scales with the protocol.
  double protocolFixedLatencySeconds = 0;
};

// Where ranks share one device's memory, their reductions compete with their copies for it: each is then
// charged as traffic over `route` (from the rank's host to `sinkHost`) of `bytesPerReducedByte` per byte
// reduced, instead of γ on the rank's own host.
struct ReductionTraffic {
  std::string sinkHost;
  std::vector<RouteHop> route;
  double bytesPerReducedByte = 1;
};

class PlatformDescription {
 public:
  virtual ~PlatformDescription() = default;
  virtual int hosts() const = 0;
  virtual std::string hostName(Rank rank) const = 0;
  virtual PlatformLink link(LinkId id) const = 0;
  virtual std::vector<RouteHop> route(Rank from, Rank to) const = 0;
  // γ of the GPU rank `rank` runs on.
  virtual double reduceSecondsPerByte(Rank rank) const = 0;
  // Set where rank `rank`'s reductions are memory traffic shared with other ranks (see ReductionTraffic).
  virtual std::optional<ReductionTraffic> reductionTraffic(Rank rank) const {
    (void)rank;
    return std::nullopt;
  }
  // Set where every rank's training compute runs on one machine's cores (an emulated cluster on one host):
  // what that machine computes with every core busy, in units of one rank computing alone. Each rank's
  // compute then gets its fair share of this, and never more than one (its own speed alone). Unset: each
  // rank computes on its own GPU.
  virtual std::optional<double> sharedComputeThroughput() const { return std::nullopt; }
  // Where carrying a message takes work on that machine's cores (its TCP stacks, an emulated cluster's
  // bridge): the work per byte of a message from `from` to `to`, in seconds of one rank computing alone,
  // which the machine runs before any compute (the kernel and a real-time bridge preempt the ranks). 0: none.
  // Charged only where sharedComputeThroughput is set.
  virtual double networkWorkSecondsPerByte(Rank from, Rank to) const {
    (void)from;
    (void)to;
    return 0;
  }
};

}  // namespace ddl
