#include "sim/calibration/network_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/schedule/collective.hpp"
#include "common/invalid_argument.hpp"
#include "common/limits.hpp"
#include "sim/registered_engines.hpp"
#include "sim/sweep/fresh_process.hpp"
#include "sim/sweep/simulation_memory.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

// The latency c_α is taken at where the topology's is zero.
constexpr double kProbeLatencySeconds = 1e-5;
// Rows whose c_α and c_β columns are this correlated measure one mix of latency and bandwidth only.
constexpr double kMaxCorrelation = 0.9999;
// Relative residuals below this weigh as this in the least-absolute-error fit (0.01%): rows fitted
// exactly would otherwise take all the weight and lock the fit to whichever two rows it met first,
// an outlier among them.
constexpr double kResidualFloor = 1e-4;

bool endsAtGpu(const TopologyLink& link) { return link.from.rfind("gpu", 0) == 0 || link.to.rfind("gpu", 0) == 0; }

struct Row {
  std::string sweep;
  const AlgorithmDefinition* algorithm;
  AlgorithmOptions options;
  CollectiveSpec spec;
  Topology topology;  // the node as the measured hosts had it
  std::int64_t bytes;
  double measured;
};

std::vector<Row> rowsOf(const Topology& topology, const std::vector<MeasuredSweep>& sweeps) {
  std::vector<Row> rows;
  for (const MeasuredSweep& measured : sweeps) {
    const CollectiveSweep& sweep = measured.sweep;
    const std::string at = measured.file + ": $";
    const CollectiveKind kind = *parseCollectiveKind(sweep.collective);
    const AlgorithmDefinition* algorithm = nullptr;
    try {
      algorithm = &findAlgorithm(kind, sweep.algorithmName);
      refuseSwitchReduction(*algorithm, "algorithm", ", which ddlsim calibrate network does not fit yet");
    } catch (const InvalidArgument& error) {
      throw InvalidArgument(at + ".algorithm", std::string("cannot be simulated: ") + error.what());
    }
    if (sweep.ranks > kMaxRanks)
      throw InvalidArgument(at + ".ranks", std::to_string(sweep.ranks) + " ranks: ddlsim simulates at most " + std::to_string(kMaxRanks));
    const int perHost = sweep.ranksPerHost > 0 ? sweep.ranksPerHost : topology.node.gpus;
    Topology hosts = withGpusPerNode(topology, std::min(perHost, sweep.ranks), at + ".ranks_per_host");
    const Cluster cluster(hosts, sweep.ranks, Placement::Packed);
    if (sweep.hosts > 0 && cluster.nodes() != sweep.hosts)
      throw InvalidArgument(at + ".hosts", std::to_string(sweep.hosts) + " hosts, but " + std::to_string(sweep.ranks) +
                                               " ranks fill " + std::to_string(cluster.nodes()) + " nodes of " + std::to_string(perHost) + " rank(s) each");
    const int elementBytes = sweepElementBytes(sweep.type);
    for (std::size_t i = 0; i < sweep.rows.size(); ++i) {
      const CollectiveSweepRow& row = sweep.rows[i];
      if (!(row.result.seconds > 0))
        throw InvalidArgument(at + ".rows[" + std::to_string(i) + "].time_s", "a measured time must be positive");
      const CollectiveSpec spec{kind, sweep.ranks, row.count, elementBytes};
      // Bad parameters fail here, before any simulation; and so does a row too large for this machine, as
      // ddlsim collective refuses the same simulation.
      const Schedule schedule = [&] {
        try {
          return makeSchedule(*algorithm, spec, sweep.parameters);
        } catch (const InvalidArgument& error) {
          throw InvalidArgument(at + ".parameters", std::string("cannot be simulated: ") + error.what());
        }
      }();
      requireSimulationMemory(schedule, netpointsOf(cluster), at + ".ranks",
                              "simulating " + schedule.description() + " of " + std::to_string(row.bytes) + " bytes on " +
                                  std::to_string(sweep.ranks) + " ranks");
      rows.push_back({measured.file + " (" + sweep.label + ")", algorithm, sweep.parameters, spec, hosts, row.bytes, row.result.seconds});
    }
  }
  return rows;
}

// One measured row as an equation in α and β, relative: a α + b β = y.
struct RowEquation {
  double a, b, y;
};

struct Normal {
  double aa = 0, ab = 0, bb = 0, ay = 0, by = 0;
};

Normal normalEquations(const std::vector<RowEquation>& equations, const std::vector<double>& weights) {
  Normal n;
  for (std::size_t i = 0; i < equations.size(); ++i) {
    const auto [a, b, y] = equations[i];
    const double w = weights[i];
    n.aa += w * a * a, n.ab += w * a * b, n.bb += w * b * b, n.ay += w * a * y, n.by += w * b * y;
  }
  return n;
}

// The α and β of least absolute relative error, by iteratively reweighted least squares. Not least
// squares: a row the α-β model cannot describe (a protocol switch at one size) would pull every other
// row off; with absolute errors it stays an outlier, and the residuals show it.
std::pair<double, double> leastAbsoluteErrors(const std::vector<RowEquation>& equations) {
  std::vector<double> weights(equations.size(), 1);
  double alpha = 0, beta = 0;
  for (int iteration = 0; iteration < 500; ++iteration) {
    const Normal n = normalEquations(equations, weights);
    const double determinant = n.aa * n.bb - n.ab * n.ab;
    const double nextAlpha = (n.ay * n.bb - n.by * n.ab) / determinant;
    const double nextBeta = (n.by * n.aa - n.ay * n.ab) / determinant;
    const bool settled = std::abs(nextAlpha - alpha) <= 1e-12 * std::abs(nextAlpha) && std::abs(nextBeta - beta) <= 1e-12 * std::abs(nextBeta);
    alpha = nextAlpha, beta = nextBeta;
    if (settled) break;
    for (std::size_t i = 0; i < equations.size(); ++i)
      weights[i] = 1 / std::max(std::abs(equations[i].a * alpha + equations[i].b * beta - equations[i].y), kResidualFloor);
  }
  return {alpha, beta};
}

}  // namespace

Topology withLevel(Topology topology, LinkLevel level, double latencySeconds, double bandwidthBps) {
  if (level == LinkLevel::Network) {
    topology.network.nicLatencySeconds = latencySeconds;
    topology.network.nicBandwidthBps = bandwidthBps;
    return topology;
  }
  for (TopologyLink& link : topology.node.links)
    if (endsAtGpu(link)) {
      link.latencySeconds = latencySeconds;
      link.bandwidthBps = bandwidthBps;
    }
  return topology;
}

NetworkCalibration calibrateLevel(const Topology& topology, LinkLevel level, const std::vector<MeasuredSweep>& sweeps, int jobs) {
  const std::string levelName = level == LinkLevel::Network ? "network" : "node";
  // SimGrid's engine, the reference, runs the probes (refused by name in a build without it).
  const Engine& simgrid = engineNamed(kSimGridEngineName, "calibrate network: the engine");
  const std::vector<Row> rows = rowsOf(topology, sweeps);
  if (rows.size() < 3)
    throw InvalidArgument("calibrate network: measured rows",
                          std::to_string(rows.size()) + " measured size(s): fitting a latency and a bandwidth needs three or more");
  // The level's values now: c_α and c_β are taken at them (a latency of zero at a probe).
  double latency = 0, bandwidth = 0;
  if (level == LinkLevel::Network) {
    latency = topology.network.nicLatencySeconds;
    bandwidth = topology.network.nicBandwidthBps;
  } else {
    const auto link = std::find_if(topology.node.links.begin(), topology.node.links.end(), endsAtGpu);
    if (link == topology.node.links.end())
      throw InvalidArgument("calibrate network: --level", "node: " + topology.name + " has no node link with a GPU at one end");
    latency = link->latencySeconds;
    bandwidth = link->bandwidthBps;
  }
  const double probeLatency = latency > 0 ? latency : kProbeLatencySeconds;

  // Each row at (no latency, bandwidth), (no latency, twice the bandwidth) and (latency, bandwidth), each
  // simulation in a process of its own. Probes at realistic values: SimGrid's sharing solver works to a
  // relative precision, which a link a million times faster than the rest would fall below.
  auto simulateAll = [&](const std::vector<std::pair<double, double>>& settings) {
    std::vector<std::function<std::vector<double>()>> tasks;
    for (const Row& row : rows)
      for (const auto& [l, b] : settings)
        tasks.emplace_back([&row, &simgrid, level, l = l, b = b] {
          const Cluster cluster(withLevel(row.topology, level, l, b), row.spec.ranks, Placement::Packed);
          return std::vector<double>{simgrid.collective(makeSchedule(*row.algorithm, row.spec, row.options), cluster).seconds};
        });
    return inFreshProcesses(tasks, jobs);
  };
  const std::vector<std::vector<double>> probes =
      simulateAll({{0, bandwidth}, {0, 2 * bandwidth}, {probeLatency, bandwidth}});

  // Each row's equation, scaled by 1 / measured so that its error is relative: a α + b β = y.
  std::vector<RowEquation> equations;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double atBandwidth = probes[3 * i][0], atTwice = probes[3 * i + 1][0];
    const double c_beta = (atBandwidth - atTwice) * 2 * bandwidth;  // T = T0 + c_β / B
    const double t0 = atBandwidth - c_beta / bandwidth;
    equations.push_back({(probes[3 * i + 2][0] - atBandwidth) / probeLatency / rows[i].measured, c_beta / rows[i].measured,
                         (rows[i].measured - t0) / rows[i].measured});
  }
  const Normal all = normalEquations(equations, std::vector<double>(equations.size(), 1));
  if (!(all.aa > 0) || !(all.bb > 0))
    throw InvalidArgument("calibrate network: --level",
                          levelName + ": no measured message crosses it (" + (all.aa > 0 ? "its bandwidth" : "its latency") +
                              " costs nothing in any row): measure across it, or calibrate another level");
  if (all.ab / std::sqrt(all.aa * all.bb) > kMaxCorrelation)
    throw InvalidArgument("calibrate network: measured rows",
                          "their sizes do not separate latency from bandwidth: measure small sizes (a few KiB) and large ones "
                          "(MiB) alike");
  const auto [alpha, beta] = leastAbsoluteErrors(equations);
  if (!(alpha >= 0) || !(beta > 0))
    throw InvalidArgument("calibrate network: measured rows",
                          levelName + ": the best fit has a latency of " + std::to_string(alpha) + " s and " +
                              std::to_string(beta) + " s/B, not both positive: the rows are not a latency plus a bandwidth on this level");

  NetworkCalibration calibration;
  calibration.latencySeconds = alpha;
  calibration.bandwidthBps = 1 / beta;
  const std::vector<std::vector<double>> fitted = simulateAll({{alpha, 1 / beta}});
  for (std::size_t i = 0; i < rows.size(); ++i)
    calibration.rows.push_back({rows[i].sweep, rows[i].bytes, rows[i].measured, fitted[i][0]});
  return calibration;
}

}  // namespace ddl
