// Ranks that do the same thing are simulated once (sim/step/step_symmetry.hpp): the step engine finds the
// smallest translation of the ranks that maps a schedule and its platform onto themselves, simulates one
// period of ranks, and gives every rank the time of the rank that stands for it. Specified here: which
// translations it finds, that a link every translate crosses gives each its share, that nothing is claimed
// where the schedule or the platform breaks the symmetry, and that the answer is the whole job's.

#include <gtest/gtest.h>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/collectives/registry.hpp"
#include "sim/step/step_collective.hpp"
#include "sim/step/step_iteration.hpp"
#include "sim/step/step_symmetry.hpp"
#include "tests/sim/engine_agreement.hpp"
#include "topologies/cluster.hpp"
#include "topologies/topology.hpp"

namespace ddl::testing {
namespace {

using step::findRankSymmetry;
using step::RankSymmetryUse;

Schedule ringOf(int ranks, Elements elements) {
  return makeSchedule(kRingAllreduce, {CollectiveKind::Allreduce, ranks, elements, 4}, {});
}

Topology topologyNamed(const std::string& name) {
  return loadTopology(std::string(DDLSCALE_SOURCE_DIR) + "/topologies/" + name + ".json");
}

Cluster clusterOf(const std::string& topology, int gpus) { return Cluster(topologyNamed(topology), gpus, Placement::Packed); }

// Every rank sends through its own port onto one bus all of them share (both directions alike), and on
// through the receiver's port: a ring of it is the same for every rank, and every message crosses the bus.
class RanksOnOneBus final : public PlatformDescription {
 public:
  RanksOnOneBus(int ranks, double busBps) : ranks_(ranks), busBps_(busBps) {}
  int hosts() const override { return ranks_; }
  std::string hostName(Rank rank) const override { return "rank" + std::to_string(rank); }
  PlatformLink link(LinkId id) const override {
    if (id == kBus) return {"bus", busBps_, 1e-6, LinkSharing::BothDirections};
    return {"port" + std::to_string(id), 10e9, 1e-6, LinkSharing::PerDirection};
  }
  std::vector<RouteHop> route(Rank from, Rank to) const override { return {{from, true}, {kBus, true}, {to, false}}; }
  double reduceSecondsPerByte(Rank) const override { return 1e-11; }

 private:
  static constexpr LinkId kBus = -1;
  int ranks_;
  double busBps_;
};

void expectTheSameAsEveryRank(const Schedule& schedule, const PlatformDescription& platform, const std::string& what) {
  const CollectiveTiming once = step::simulateCollective(schedule, platform, 1, RankSymmetryUse::Exploit);
  const CollectiveTiming every = step::simulateCollective(schedule, platform, 1, RankSymmetryUse::Ignore);
  EXPECT_NEAR(once.seconds, every.seconds, 1e-9 * every.seconds) << what;
  ASSERT_EQ(once.rankSeconds.size(), every.rankSeconds.size()) << what;
  for (std::size_t r = 0; r < every.rankSeconds.size(); ++r)
    EXPECT_NEAR(once.rankSeconds[r], every.rankSeconds[r], 1e-9 * every.seconds) << what << ", rank " << r;
}

TEST(RankSymmetry, OnDgxH100ARingRepeatsEveryNodeWithinALeafAndEveryLeafBeyond) {
  // 16 nodes of 8 GPUs per leaf: within one leaf every node's ring hop out is alike; across leaves the
  // hop out of a leaf's last node crosses the uplinks, so only a whole leaf repeats.
  const auto within = findRankSymmetry(ringOf(64, 64 * 1024), clusterOf("dgx-h100-ndr", 64));
  ASSERT_TRUE(within);
  EXPECT_EQ(within->period, 8);
  EXPECT_EQ(within->copies, 8);
  const auto across = findRankSymmetry(ringOf(512, 512 * 16), clusterOf("dgx-h100-ndr", 512));
  ASSERT_TRUE(across);
  EXPECT_EQ(across->period, 128);
  EXPECT_EQ(across->copies, 4);
}

TEST(RankSymmetry, ALinkEveryTranslateCrossesGivesEachItsShare) {
  const RanksOnOneBus platform(8, 40e9);
  const auto symmetry = findRankSymmetry(ringOf(8, 8 * 1024), platform);
  ASSERT_TRUE(symmetry);
  EXPECT_EQ(symmetry->period, 1);
  const RouteHop bus{-1, true};
  EXPECT_DOUBLE_EQ(symmetry->orbits.at(step::linkResourceKey(bus, platform.link(-1))).capacityShare, 1.0 / 8);
  const RouteHop port{3, true};
  EXPECT_DOUBLE_EQ(symmetry->orbits.at(step::linkResourceKey(port, platform.link(3))).capacityShare, 1.0);
  // Eight messages at once on a 40 GB/s bus: 5 GB/s each, below the ports' 10 GB/s.
  expectTheSameAsEveryRank(ringOf(8, 8 * 1024 * 1024), platform, "the bus");
}

TEST(RankSymmetry, NothingIsClaimedWhereTheScheduleOrThePlatformBreaksIt) {
  // Chunks of two sizes: the ring claims nothing.
  EXPECT_FALSE(findRankSymmetry(ringOf(64, 64 * 1024 + 1), clusterOf("dgx-h100-ndr", 64)));
  // A schedule of given programs claims nothing, however regular.
  const Schedule ring = ringOf(8, 64);
  EXPECT_FALSE(findRankSymmetry(Schedule::fromPrograms(ring.spec(), "ring", ring.allPrograms()), RanksOnOneBus(8, 40e9)));
  // 12 GPUs of 8-GPU nodes: a full node and half of one, alike under no translation short of all 12.
  EXPECT_FALSE(findRankSymmetry(ringOf(12, 12 * 64), clusterOf("dgx-h100-ndr", 12)));
}

TEST(RankSymmetry, TheAnswerIsTheWholeJobsOnEveryShippedTopology) {
  for (const std::string& topology : shippedTopologies()) {
    for (int gpus : {16, 64}) {
      if (topologyNamed(topology).nicsUsed == 0 && gpus > topologyNamed(topology).node.gpus) continue;  // one node only
      const Cluster cluster = clusterOf(topology, gpus);
      for (Elements elements : {Elements{gpus}, Elements{gpus} * 64 * 1024})
        expectTheSameAsEveryRank(ringOf(gpus, elements), cluster,
                                 topology + ", " + std::to_string(gpus) + " GPUs, " + std::to_string(elements) + " elements");
    }
  }
}

TEST(RankSymmetry, AcrossLeavesTheAnswerIsTheWholeJobs) {
  // 256 DGX H100 GPUs: two leaves, each standing for the other.
  const Cluster cluster = clusterOf("dgx-h100-ndr", 256);
  ASSERT_EQ(findRankSymmetry(ringOf(256, 256 * 4096), cluster)->period, 128);
  expectTheSameAsEveryRank(ringOf(256, 256 * 4096), cluster, "dgx-h100-ndr, 256 GPUs");
}

// Eight layers of `elements` each, a bucket each.
TrainingWorkload eightLayersOf(Elements elements) {
  TrainingWorkload workload;
  workload.model = "test";
  workload.forwardSeconds = 0.002;
  workload.optimizerSeconds = 0.0005;
  for (int i = 0; i < 8; ++i) workload.gradients.push_back({"layer" + std::to_string(i), elements, 0.0004});
  return workload;
}

TEST(RankSymmetry, AnIterationOfBucketsThatDivideIsTheWholeJobs) {
  // Layers of 64 Ki elements: every bucket's ring has chunks of one size at 256 GPUs.
  const IterationPlan plan(eightLayersOf(64 * 1024), 256 * 1024);
  const Cluster cluster = clusterOf("dgx-h100-ndr", 256);
  const IterationCollectives ring = bucketAllreduces(plan, kRingAllreduce, {}, 256);
  ASSERT_EQ(ring.schedules.size(), 8u);
  ASSERT_EQ(findRankSymmetry(ring.schedules, cluster)->period, 128);
  IterationEffects overlap;
  overlap.overlapSlowdown = 0.3;  // alike on every rank: the symmetry holds
  for (const IterationEffects& effects : {IterationEffects{}, overlap}) {
    const IterationSimulation once = step::simulateIteration(plan, ring, cluster, effects, nullptr, "", RankSymmetryUse::Exploit);
    const IterationSimulation every = step::simulateIteration(plan, ring, cluster, effects, nullptr, "", RankSymmetryUse::Ignore);
    EXPECT_NEAR(once.iterationSeconds, every.iterationSeconds, 1e-9 * every.iterationSeconds);
    ASSERT_EQ(once.allreduces.size(), every.allreduces.size());
    for (std::size_t b = 0; b < every.allreduces.size(); ++b)
      EXPECT_NEAR(once.allreduces[b].seconds, every.allreduces[b].seconds, 1e-9 * every.allreduces[b].seconds) << "bucket " << b;
  }
}

TEST(RankSymmetry, BucketsThatDoNotDivideAreEvenedOnlyWhereAllowedAndWithinAnElementPerMessage) {
  // Layers of 64 Ki + 100 elements: blocks of 256 and 257 elements at 256 GPUs, no translation as given.
  const IterationPlan plan(eightLayersOf(64 * 1024 + 100), 256 * 1024);
  const Cluster cluster = clusterOf("dgx-h100-ndr", 256);
  const IterationCollectives ring = bucketAllreduces(plan, kRingAllreduce, {}, 256);
  const IterationSimulation exact = step::simulateIteration(plan, ring, cluster);
  EXPECT_EQ(exact.evenedBucketChange, 0);
  const IterationSimulation evened =
      step::simulateIteration(plan, ring, cluster, {}, nullptr, "", RankSymmetryUse::Exploit, step::BucketEvening::Allow);
  // Rounded to 64 Ki: 100 elements fewer.
  EXPECT_DOUBLE_EQ(evened.evenedBucketChange, 100.0 / (64 * 1024 + 100));
  // Every message within one element (4 bytes of about 1 KiB) of its own: the iteration within 0.4% of it,
  // and here, latency-bound, far closer.
  EXPECT_NEAR(evened.iterationSeconds, exact.iterationSeconds, 1e-3 * exact.iterationSeconds);
  EXPECT_NE(evened.iterationSeconds, exact.iterationSeconds);
  for (std::size_t b = 0; b < exact.allreduces.size(); ++b)
    EXPECT_NEAR(evened.allreduces[b].seconds, exact.allreduces[b].seconds, 4e-3 * exact.allreduces[b].seconds) << "bucket " << b;
}

TEST(RankSymmetry, EveningWithinTheToleranceMovesTheIterationByLessThanTheAgreementBound) {
  // Layers of 64 Ki + 50 elements: blocks of 256 and 257 elements at 256 GPUs, evened by 50 elements in
  // 65,586 (7.6e-4, under kEvenedBucketTolerance): the iteration within the engines' agreement bound of the
  // exact one, as every bucket's allreduce.
  const IterationPlan plan(eightLayersOf(64 * 1024 + 50), 256 * 1024);
  const Cluster cluster = clusterOf("dgx-h100-ndr", 256);
  const IterationCollectives ring = bucketAllreduces(plan, kRingAllreduce, {}, 256);
  ASSERT_EQ(step::eveningFor(ring), step::BucketEvening::Allow);
  const IterationSimulation exact = step::simulateIteration(plan, ring, cluster);
  const IterationSimulation evened =
      step::simulateIteration(plan, ring, cluster, {}, nullptr, "", RankSymmetryUse::Exploit, step::BucketEvening::Allow);
  EXPECT_DOUBLE_EQ(evened.evenedBucketChange, 50.0 / (64 * 1024 + 50));
  EXPECT_NEAR(evened.iterationSeconds, exact.iterationSeconds, 1e-4 * exact.iterationSeconds);
  for (std::size_t b = 0; b < exact.allreduces.size(); ++b)
    EXPECT_NEAR(evened.allreduces[b].seconds, exact.allreduces[b].seconds, 1e-4 * exact.allreduces[b].seconds) << "bucket " << b;
}

TEST(RankSymmetry, DdlsimEvensBucketsWithinTheToleranceOrWhereSimulatingThemAsGivenIsTooLarge) {
  // A bucket per layer.
  const auto eveningAt = [](Elements layer, int gpus) {
    return step::eveningFor(bucketAllreduces(IterationPlan(eightLayersOf(layer), layer * 4), kRingAllreduce, {}, gpus));
  };
  // At 256 GPUs: 50 elements in 65,586 rounded away is within kEvenedBucketTolerance; 100 in 65,636 is not,
  // and the ring's 510 steps on 256 ranks fit.
  EXPECT_EQ(eveningAt(64 * 1024 + 50, 256), step::BucketEvening::Allow);
  EXPECT_EQ(eveningAt(64 * 1024 + 100, 256), step::BucketEvening::Forbid);
  // Fewer elements than GPUs: never evened.
  EXPECT_EQ(eveningAt(200, 256), step::BucketEvening::Forbid);
  // At 8192 GPUs a flat ring's 16,382 steps per rank are past 2^22 in all: evened whatever the change
  // (10,192 elements rounded to 8,192, a fifth fewer).
  const IterationCollectives ring = bucketAllreduces(IterationPlan(eightLayersOf(1274), 1 << 20), kRingAllreduce, {}, 8192);
  ASSERT_EQ(ring.schedules.size(), 1u);
  EXPECT_GT(static_cast<double>(ring.schedules[0].program(0).size()) * 8192, step::kExactStepsLimit);
  EXPECT_EQ(step::eveningFor(ring), step::BucketEvening::Allow);
}

TEST(RankSymmetry, ABucketOfFewerElementsThanGpusIsNeverEvened) {
  // Blocks of one element and of none: a message and no message, which no evening keeps.
  const IterationPlan plan(eightLayersOf(200), 200 * 4);  // a bucket per layer
  const Cluster cluster = clusterOf("dgx-h100-ndr", 256);
  const IterationSimulation simulated = step::simulateIteration(plan, bucketAllreduces(plan, kRingAllreduce, {}, 256), cluster, {},
                                                                nullptr, "", RankSymmetryUse::Exploit, step::BucketEvening::Allow);
  EXPECT_EQ(simulated.evenedBucketChange, 0);
}

}  // namespace
}  // namespace ddl::testing
