#pragma once
// The network model every ddlscale simulation runs under, set once per process and written into every
// exported platform file, so that plain SimGrid loading the file times transfers as ddlsim does.
//
// SimGrid's CM02 without cross-traffic or TCP's window limit (gamma): a transfer then costs the α-β
// textbook time, its route's latency plus its size over the narrowest link, exactly. SimGrid's default
// model (LV08), calibrated on TCP over Ethernet, multiplies latencies by about 13 and takes a few percent
// of bandwidth (measured here: 1 GB between two Minsky nodes, 0.0800 s under this model, 0.0826 s under
// LV08; tests/sim/platform_xml_test.cpp prints both). It would be wrong for NVLink and InfiniBand.
//
// And SimGrid's "Full" update of its actions, not its default "Lazy" one: Lazy ends some receives early
// when several sends start at once towards receivers that posted before (measured on SimGrid 3.32: a
// 256 KiB receive that must end at 74.5 us ends at 64.7 us, while its send ends at 74.5 us;
// tests/sim/plain_simgrid_lazy_update.cpp). It made ddlsim's SimGrid engine disagree with its step engine
// by up to 4.5% on the double binary tree, and end ranks of the hierarchical allreduce early. Full costs no
// measurable time here (a 256-rank 100 MB ring: 1.45 s against 1.39 s).

namespace ddl {

struct SimGridSetting {
  const char* name;
  const char* value;
};

inline constexpr SimGridSetting kNetworkModel[] = {
    {"network/model", "CM02"},
    {"network/crosstraffic", "0"},
    {"network/TCP-gamma", "0"},
    {"network/optim", "Full"},
};

}  // namespace ddl
