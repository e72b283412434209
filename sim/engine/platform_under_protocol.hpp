#pragma once
// A platform as a protocol sees it (algorithms/tuning/nccl_protocol.hpp): every link's latency scaled by the
// protocol's ratio for the link's hardware, but for a device's own latency (protocolFixedLatencySeconds,
// which NCCL's model adds to every protocol alike), and its bandwidth by the protocol's share of data;
// hosts, routes and sharing unchanged. Under Simple it is the platform itself.

#include "algorithms/tuning/nccl_protocol.hpp"
#include "topologies/platform_decorator.hpp"

namespace ddl {

class PlatformUnderProtocol final : public PlatformDecorator {
 public:
  PlatformUnderProtocol(const PlatformDescription& platform, Protocol protocol)
      : PlatformDecorator(platform), costs_(costsOf(protocol)) {}
  // Under costs other than the ring's (costsOf(protocol, row, onePerNode)).
  PlatformUnderProtocol(const PlatformDescription& platform, const ProtocolCosts& costs) : PlatformDecorator(platform), costs_(costs) {}

  PlatformLink link(LinkId id) const override {
    PlatformLink link = platform().link(id);
    const double fixed = link.protocolFixedLatencySeconds;
    link.latencySeconds = (link.latencySeconds - fixed) * costs_.latencyRatio(ncclHardwareOf(link.hardware)) + fixed;
    link.bandwidthBps *= costs_.bandwidthShare;
    return link;
  }

  static NcclHardware ncclHardwareOf(LinkHardware hardware) {
    switch (hardware) {
      case LinkHardware::NVLink: return NcclHardware::NVLink;
      case LinkHardware::Network: return NcclHardware::Network;
      case LinkHardware::PCIe: break;
    }
    return NcclHardware::PCI;
  }

 private:
  ProtocolCosts costs_;
};

}  // namespace ddl
