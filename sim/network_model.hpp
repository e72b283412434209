#pragma once
// The network model every ddlscale simulation runs under, set once per process and written into every
// exported platform file, so that plain SimGrid loading the file times transfers as ddlsim does.
//
// SimGrid's CM02 without cross-traffic or TCP's window limit (gamma): a transfer then costs the α-β
// textbook time, its route's latency plus its size over the narrowest link, exactly. SimGrid's default
// model (LV08) adds about 13 times the latency and 5% of bandwidth, calibrated on TCP over Ethernet; it
// would be wrong for NVLink and InfiniBand.

namespace ddl {

struct SimGridSetting {
  const char* name;
  const char* value;
};

inline constexpr SimGridSetting kNetworkModel[] = {
    {"network/model", "CM02"},
    {"network/crosstraffic", "0"},
    {"network/TCP-gamma", "0"},
};

}  // namespace ddl
