// The latency and bandwidth of a link level fitted from measured sweeps give back the values the sweeps
// were made with, when the "measurements" are the simulator's own at known values: the fit inverts the
// model exactly. And data that cannot identify both is refused.
#include "sim/calibration/network_calibration.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"
#include "sim/simgrid/collective_on_simgrid.hpp"
#include "topologies/cluster.hpp"

namespace ddl {
namespace {

// An emulated cluster's node (runtime/emulated_cluster/emulated_topology.py): `gpus` ranks around shared
// memory, one NIC.
Topology emulated(int gpus, double nicLatency, double nicBandwidth, double shmLatency = 2e-6, double shmBandwidth = 3e9) {
  nlohmann::json links = nlohmann::json::array();
  for (int g = 0; g < gpus; ++g)
    links.push_back({{"name", "shm-gpu" + std::to_string(g)}, {"between", {"gpu" + std::to_string(g), "shm"}},
                     {"bandwidth_Bps", shmBandwidth}, {"latency_s", shmLatency}});
  links.push_back({{"name", "shm-nic0"}, {"between", {"shm", "nic0"}}, {"bandwidth_Bps", 1e11}, {"latency_s", 0}});
  const nlohmann::json file = {
      {"name", "emulated"},
      {"node", {{"gpu", "cpu-rank"}, {"gpus", gpus}, {"devices", {"shm", "nic0"}}, {"links", links}, {"nics", {"nic0"}},
                {"port", {{"bandwidth_Bps", 1e11}, {"latency_s", 0}}}, {"reduce_Bps", 4e9}}},
      {"nics_used", 1},
      {"network", {{"nic_bandwidth_Bps", nicBandwidth}, {"nic_latency_s", nicLatency}, {"nodes_per_leaf", 8},
                   {"oversubscription", 1}, {"core_latency_s", 0}}}};
  return topologyFromJson(file, "emulated.json");
}

// What ddlsim collective predicts on `topology` for `algorithm` at `ranks`, `perHost` a host, as a sweep.
MeasuredSweep predicted(const Topology& topology, const std::string& algorithm, int ranks, int perHost,
                        const std::vector<std::int64_t>& sizes) {
  CollectiveSweep sweep;
  sweep.collective = "allreduce";
  sweep.algorithmName = algorithm;
  sweep.label = algorithm;
  sweep.ranks = ranks;
  sweep.hosts = ranks / perHost;
  sweep.ranksPerHost = perHost;
  sweep.type = "float32";
  const Cluster cluster(topology, ranks, Placement::Packed);
  for (std::int64_t bytes : sizes) {
    const Schedule schedule = makeSchedule(findAlgorithm(CollectiveKind::Allreduce, algorithm),
                                           {CollectiveKind::Allreduce, ranks, bytes / 4, 4}, {});
    sweep.rows.push_back({bytes, bytes / 4, {simulateCollective(schedule, cluster).seconds, std::nullopt}, std::nullopt, std::nullopt, "", ""});
  }
  return {algorithm + ".json", sweep};
}

const std::vector<std::int64_t> kSizes = {4096, 65536, 1 << 20, 16 << 20};

TEST(NetworkCalibration, TheNetworksLatencyAndBandwidthComeBackFromItsOwnPredictions) {
  const Topology truth = emulated(1, 2.5e-4, 1.24e7);
  const std::vector<MeasuredSweep> sweeps = {predicted(truth, "ring", 2, 1, kSizes), predicted(truth, "halving-doubling", 4, 1, kSizes)};
  // Starting far off: 4x the latency, a quarter of the bandwidth.
  const NetworkCalibration fit = calibrateLevel(emulated(1, 1e-3, 3.1e6), LinkLevel::Network, sweeps, 2);
  EXPECT_NEAR(fit.latencySeconds, 2.5e-4, 2.5e-4 * 1e-6);
  EXPECT_NEAR(fit.bandwidthBps, 1.24e7, 1.24e7 * 1e-6);
  ASSERT_EQ(fit.rows.size(), 8u);
  for (const CalibratedRow& row : fit.rows) EXPECT_NEAR(row.relativeError(), 0, 1e-6) << row.sweep << " " << row.bytes;
}

TEST(NetworkCalibration, ARowTheModelCannotDescribeStaysAnOutlier) {
  // As where a library switches protocol at one size: the 1 MiB rows of two sweeps measured 30% slower than
  // any latency and bandwidth explain. The fit keeps to the other twelve rows and shows those two.
  const Topology truth = emulated(1, 2.5e-4, 1.24e7);
  const std::vector<std::int64_t> sizes = {4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20};
  std::vector<MeasuredSweep> sweeps = {predicted(truth, "ring", 2, 1, sizes), predicted(truth, "halving-doubling", 4, 1, sizes)};
  for (MeasuredSweep& sweep : sweeps) sweep.sweep.rows[4].result.seconds *= 1.3;
  const NetworkCalibration fit = calibrateLevel(emulated(1, 1e-3, 3.1e6), LinkLevel::Network, sweeps, 2);
  EXPECT_NEAR(fit.latencySeconds, 2.5e-4, 2.5e-4 * 1e-3);
  EXPECT_NEAR(fit.bandwidthBps, 1.24e7, 1.24e7 * 1e-3);
  for (std::size_t outlier : {4u, 11u})  // the 1 MiB row of each sweep
    EXPECT_NEAR(fit.rows[outlier].relativeError(), 1 / 1.3 - 1, 1e-3) << "the outlier is shown, not hidden";
}

TEST(NetworkCalibration, TheNodeLinksComeBackFromOneHostsSweep) {
  const Topology truth = emulated(2, 2.5e-4, 1.24e7, 5e-6, 2e9);
  const std::vector<MeasuredSweep> sweeps = {predicted(truth, "ring", 2, 2, kSizes)};
  const NetworkCalibration fit = calibrateLevel(emulated(2, 2.5e-4, 1.24e7), LinkLevel::Node, sweeps, 1);
  EXPECT_NEAR(fit.latencySeconds, 5e-6, 5e-6 * 1e-6);
  EXPECT_NEAR(fit.bandwidthBps, 2e9, 2e9 * 1e-6);
}

TEST(NetworkCalibration, AHostOfFewerRanksThanTheNodeHasGpusIsCutToThem) {
  // Two hosts of one rank, calibrated with a topology of two-GPU nodes: the nodes are cut to one GPU.
  const Topology truth = emulated(1, 2.5e-4, 1.24e7);
  const NetworkCalibration fit =
      calibrateLevel(emulated(2, 1e-4, 1e7), LinkLevel::Network, {predicted(truth, "ring", 2, 1, kSizes)}, 1);
  EXPECT_NEAR(fit.bandwidthBps, 1.24e7, 1.24e7 * 1e-6);
}

std::string refusal(const Topology& topology, LinkLevel level, const std::vector<MeasuredSweep>& sweeps) {
  try {
    calibrateLevel(topology, level, sweeps, 1);
  } catch (const InvalidArgument& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(NetworkCalibration, DataThatCannotIdentifyBothIsRefused) {
  const Topology truth = emulated(2, 2.5e-4, 1.24e7);
  // Two sizes: too few.
  EXPECT_NE(refusal(truth, LinkLevel::Network, {predicted(emulated(1, 2.5e-4, 1.24e7), "ring", 2, 1, {4096, 65536})}).find("three or more"),
            std::string::npos);
  // One host: its messages never reach the network.
  EXPECT_NE(refusal(truth, LinkLevel::Network, {predicted(truth, "ring", 2, 2, kSizes)}).find("no measured message crosses it"),
            std::string::npos);
  // One size, three times: latency and bandwidth cannot be told apart.
  EXPECT_NE(refusal(emulated(1, 2.5e-4, 1.24e7), LinkLevel::Network,
                    {predicted(emulated(1, 2.5e-4, 1.24e7), "ring", 2, 1, {65536, 65536, 65536})})
                .find("do not separate"),
            std::string::npos);
  // A host of more ranks than the topology's node has GPUs.
  MeasuredSweep crowded = predicted(truth, "ring", 2, 2, kSizes);
  EXPECT_NE(refusal(emulated(1, 2.5e-4, 1.24e7), LinkLevel::Node, {crowded}).find("ranks_per_host"), std::string::npos);
  // An algorithm the simulator does not know.
  crowded.sweep.algorithmName = "schedule file";
  EXPECT_NE(refusal(truth, LinkLevel::Node, {crowded}).find("$.algorithm"), std::string::npos);
}

}  // namespace
}  // namespace ddl
