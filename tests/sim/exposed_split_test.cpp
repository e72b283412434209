// ddlsim splits a point's exposed communication into the links' latency (what zeroing every latency
// removes) and bandwidth (the rest). For a ring allreduce of one bucket after backward on GPUs one per
// node, each of its 2(P-1) steps waits for the one before, so the latency part is exactly 2(P-1) routes'
// latency.

#include <gtest/gtest.h>

#include "sim/registered_engines.hpp"
#include "sim/sweep/scenario_sweep.hpp"
#include "topologies/platform_without_latency.hpp"

namespace ddl {
namespace {

Scenario oneBucketAfterBackward(int gpus, const std::string& algorithm) {
  Scenario scenario = loadScenario(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json");
  scenario.topology = loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/flat-h200-edr.json");
  scenario.gpu = "H200";
  scenario.gpuCounts = {gpus};
  scenario.fusion.bucketBytes = std::int64_t{1} << 40;
  scenario.overlapBackward = false;
  scenario.algorithms.resize(1);
  scenario.algorithms.front() = {algorithm, {}, "$.algorithms[0]", ""};
  return scenario;
}

double routeLatency(const PlatformDescription& platform, Rank from, Rank to) {
  double latency = 0;
  for (const RouteHop& hop : platform.route(from, to)) latency += platform.link(hop.link).latencySeconds;
  return latency;
}

TEST(ExposedSplit, ARingOfOneBucketLosesTwoPMinusOneRoutesLatency) {
  for (int gpus : {2, 8, 16}) {
    const Scenario scenario = oneBucketAfterBackward(gpus, "ring");
    const ScalingPoint point = simulateScenario(scenario, automaticEngine()).points.front();
    const Cluster cluster(scenario.topology, gpus, scenario.placement);
    const double latency = routeLatency(cluster, 0, 1);  // every route of this flat cluster has the same
    ASSERT_TRUE(point.exposedLatencySeconds);
    EXPECT_NEAR(*point.exposedLatencySeconds, 2 * (gpus - 1) * latency, 1e-12) << gpus << " GPUs";
    EXPECT_NEAR(*point.exposedLatencySeconds + point.exposedBandwidthSeconds(), point.exposedCommunicationSeconds(), 1e-15);
    EXPECT_GT(point.exposedBandwidthSeconds(), 0);
  }
}

TEST(ExposedSplit, BothPartsAreNeverNegativeAndAddUpToTheExposedTime) {
  for (const char* algorithm : {"ring", "halving-doubling", "binomial-tree", "double-binary-tree"}) {
    Scenario scenario = oneBucketAfterBackward(8, algorithm);
    scenario.overlapBackward = true;
    scenario.fusion.bucketBytes = 25 << 20;
    for (const ScalingPoint& point : simulateScenario(scenario, automaticEngine()).points) {
      ASSERT_TRUE(point.exposedLatencySeconds) << algorithm;
      EXPECT_GE(*point.exposedLatencySeconds, 0) << algorithm;
      EXPECT_GE(point.exposedBandwidthSeconds(), 0) << algorithm;
      EXPECT_NEAR(*point.exposedLatencySeconds + point.exposedBandwidthSeconds(), point.exposedCommunicationSeconds(), 1e-15);
    }
  }
}

TEST(ExposedSplit, ThePlatformWithoutLatencyKeepsEverythingElse) {
  const Cluster cluster(loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/minsky-p100-ib-edr.json"), 8,
                        Placement::Packed);
  const PlatformWithoutLatency bare(cluster);
  ASSERT_EQ(bare.hosts(), cluster.hosts());
  for (Rank from = 0; from < cluster.hosts(); ++from)
    for (Rank to = 0; to < cluster.hosts(); ++to) {
      if (from == to) continue;
      EXPECT_GT(routeLatency(cluster, from, to), 0);
      EXPECT_EQ(routeLatency(bare, from, to), 0);
      const auto route = cluster.route(from, to);
      ASSERT_EQ(bare.route(from, to).size(), route.size());
      for (const RouteHop& hop : route) {
        EXPECT_EQ(bare.link(hop.link).bandwidthBps, cluster.link(hop.link).bandwidthBps);
        EXPECT_EQ(bare.link(hop.link).name, cluster.link(hop.link).name);
      }
    }
}

}  // namespace
}  // namespace ddl
