#include "algorithms/tuning/nccl_protocol.hpp"

#include <algorithm>
#include <cctype>

#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// NVIDIA/nccl src/graph/tuning.cc, v2.23.4-1 (read): Ring's per-hop latencies (hwLat) in microseconds,
// for LL, LL128 and Simple, on NVLink, PCI and network hops; Ring's base latencies (baseLat); and the
// bandwidth refinements "busBw * .5" for Ring/LL and "busBw * 0.92 /*120.0/128.0*/" for Ring/LL128.
struct NcclRingConstants {
  double nvlinkMicroseconds;
  double pcieMicroseconds;
  double networkMicroseconds;
  double baseMicroseconds;
  double bandwidthShare;
};
constexpr NcclRingConstants kLL{0.6, 1.0, 2.7, 6.6, 0.5};
constexpr NcclRingConstants kLL128{1.9, 2.5, 4.0, 14.0, 0.92};
constexpr NcclRingConstants kSimple{3.4, 5.7, 14.0, 8.4, 1.0};

const NcclRingConstants& constantsOf(Protocol protocol) {
  switch (protocol) {
    case Protocol::LL: return kLL;
    case Protocol::LL128: return kLL128;
    case Protocol::Simple: break;
  }
  return kSimple;
}

}  // namespace

std::string_view toString(Protocol protocol) {
  switch (protocol) {
    case Protocol::LL: return "ll";
    case Protocol::LL128: return "ll128";
    case Protocol::Simple: break;
  }
  return "simple";
}

const std::vector<Protocol>& allProtocols() {
  static const std::vector<Protocol> all{Protocol::Simple, Protocol::LL, Protocol::LL128};
  return all;
}

Protocol parseProtocol(std::string_view name, const std::string& field) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (Protocol protocol : allProtocols())
    if (lower == toString(protocol)) return protocol;
  throw InvalidArgument(field, "'" + std::string(name) + "' is not a protocol: simple, ll or ll128 (NCCL's Simple, LL and LL128)");
}

double ProtocolCosts::hopSeconds(NcclHardware hardware) const {
  switch (hardware) {
    case NcclHardware::NVLink: return nvlinkHopSeconds;
    case NcclHardware::Network: return networkHopSeconds;
    case NcclHardware::PCI: break;
  }
  return pciHopSeconds;
}

double ProtocolCosts::latencyRatio(NcclHardware hardware) const {
  return hopSeconds(hardware) / costsOf(Protocol::Simple).hopSeconds(hardware);
}

ProtocolCosts costsOf(Protocol protocol) {
  const NcclRingConstants& p = constantsOf(protocol);
  ProtocolCosts costs;
  costs.bandwidthShare = p.bandwidthShare;
  costs.baseLatencySeconds = p.baseMicroseconds * 1e-6;
  costs.nvlinkHopSeconds = p.nvlinkMicroseconds * 1e-6;
  costs.pciHopSeconds = p.pcieMicroseconds * 1e-6;
  costs.networkHopSeconds = p.networkMicroseconds * 1e-6;
  return costs;
}

}  // namespace ddl
