#include "algorithms/tuning/nccl_protocol.hpp"

#include <algorithm>
#include <cctype>

#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// NVIDIA/nccl src/graph/tuning.cc, v2.23.4-1 (read): Ring's per-hop latencies (hwLat) in microseconds,
// for LL, LL128 and Simple, on NVLink, PCI and network hops; Ring's base latencies (baseLat); and the
// bandwidth refinements "busBw * .5" for Ring/LL and "busBw * 0.92 /*120.0/128.0*/" for Ring/LL128.
struct NcclLatencyConstants {
  double nvlinkMicroseconds;
  double pcieMicroseconds;
  double networkMicroseconds;
  double baseMicroseconds;
  double bandwidthShare;
};
constexpr NcclLatencyConstants kLL{0.6, 1.0, 2.7, 6.6, 0.5};
constexpr NcclLatencyConstants kLL128{1.9, 2.5, 4.0, 14.0, 0.92};
constexpr NcclLatencyConstants kSimple{3.4, 5.7, 14.0, 8.4, 1.0};
// Tree's (the same file): its per-hop latencies (hwLat Tree row) and base latencies (baseLat Tree row).
constexpr NcclLatencyConstants kTreeLL{0.6, 1.0, 5.0, 6.8, 0.5};
constexpr NcclLatencyConstants kTreeLL128{1.25, 1.9, 8.5, 14.0, 0.92};
constexpr NcclLatencyConstants kTreeSimple{4.0, 4.0, 14.0, 8.4, 1.0};

const NcclLatencyConstants& constantsOf(Protocol protocol, NcclLatencyRow row) {
  const bool tree = row == NcclLatencyRow::Tree;
  switch (protocol) {
    case Protocol::LL: return tree ? kTreeLL : kLL;
    case Protocol::LL128: return tree ? kTreeLL128 : kLL128;
    case Protocol::Simple: break;
  }
  return tree ? kTreeSimple : kSimple;
}

ProtocolCosts costsFrom(const NcclLatencyConstants& p) {
  ProtocolCosts costs;
  costs.bandwidthShare = p.bandwidthShare;
  costs.baseLatencySeconds = p.baseMicroseconds * 1e-6;
  costs.nvlinkHopSeconds = p.nvlinkMicroseconds * 1e-6;
  costs.pciHopSeconds = p.pcieMicroseconds * 1e-6;
  costs.networkHopSeconds = p.networkMicroseconds * 1e-6;
  return costs;
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

ProtocolCosts costsOf(Protocol protocol) { return costsFrom(constantsOf(protocol, NcclLatencyRow::Ring)); }

ProtocolCosts costsOf(Protocol protocol, NcclLatencyRow row, bool onePerNode) {
  ProtocolCosts costs = costsFrom(constantsOf(protocol, row));
  if (onePerNode) costs.networkHopSeconds = constantsOf(protocol, NcclLatencyRow::Tree).networkMicroseconds * 1e-6;
  return costs;
}

}  // namespace ddl
