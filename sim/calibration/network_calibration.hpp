#pragma once
// α and β of one level of a topology fitted from measured collective sweeps (`ddlrun bench --json`), by
// the simulator itself: each measured row is simulated with the level's latency and inverse bandwidth set
// apart (no latency at the topology's bandwidth and at twice it, then the latency too), which gives how
// many seconds of the row one second of latency costs (c_α) and one second per byte (c_β), and what the
// rest costs (T0), everything else held as the topology has it. The fit is the α, β of least absolute
// relative error in
//
//     measured = T0 + c_α α + c_β β
//
// (iteratively reweighted least squares), so that a row the α-β model cannot describe (a protocol switch
// at one size) stays an outlier instead of pulling the rest. The rows that identify the latency are the
// small ones: where those are what the model misses (on the emulated cluster, messages within the
// shaper's burst pass unshaped), the latency cannot be recovered, and the residuals say so.
// Every row is then simulated again at the fitted values, for the residuals. Linear where the level's
// messages do not change which of them is on the critical path; the residuals show where they do.
//
// Levels: "network" is the NIC (network.nic_latency_s, nic_bandwidth_Bps); "node" is every node link
// with a GPU at one end, set alike, for nodes whose GPUs reach each other one way (the emulated cluster's
// shared memory, a switch).

#include <string>
#include <vector>

#include "algorithms/io/collective_sweep_json.hpp"
#include "topologies/topology.hpp"

namespace ddl {

enum class LinkLevel { Network, Node };

struct CalibratedRow {
  std::string sweep;  // the sweep's file and label
  std::int64_t bytes = 0;
  double measuredSeconds = 0;
  double fittedSeconds = 0;  // simulated at the fitted α and β
  double relativeError() const { return (fittedSeconds - measuredSeconds) / measuredSeconds; }
};

struct NetworkCalibration {
  double latencySeconds = 0;
  double bandwidthBps = 0;
  std::vector<CalibratedRow> rows;
};

struct MeasuredSweep {
  std::string file;
  CollectiveSweep sweep;
};

// The topology with `level` set to the given latency and bandwidth.
Topology withLevel(Topology topology, LinkLevel level, double latencySeconds, double bandwidthBps);

// Throws InvalidArgument (naming the file and field, or the level) where the sweeps cannot identify both
// α and β: fewer than three rows, rows that never cross the level, sizes that do not separate latency
// from bandwidth, or a fit that is not positive. `jobs`: simulations at once.
NetworkCalibration calibrateLevel(const Topology& topology, LinkLevel level, const std::vector<MeasuredSweep>& sweeps, int jobs);

}  // namespace ddl
