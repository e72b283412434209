// nccl-nvls: NCCL's NVLS allreduce, where the NVSwitch is a participant after the ranks that sums what they
// send it and writes each GPU's store of a sum to every GPU.

#include <gtest/gtest.h>

#include <sstream>

#include "algorithms/collectives/definitions.hpp"
#include "algorithms/cost/schedule_walk.hpp"
#include "algorithms/io/msccl_xml.hpp"
#include "algorithms/schedule/traffic.hpp"
#include "algorithms/verify/verifier.hpp"
#include "common/invalid_argument.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

Schedule nvls(int ranks, Elements elements, const AlgorithmOptions& options = {}) { return allreduce("nccl-nvls", ranks, elements, options); }

TEST(NcclNvls, HasOneSwitchAfterTheRanks) {
  const Schedule schedule = nvls(8, 1 << 20);
  EXPECT_EQ(schedule.ranks(), 8);
  EXPECT_EQ(schedule.spec().switches, 1);
  EXPECT_EQ(schedule.participants(), 9);
  // Every rank talks to the switch alone: no GPU sends to another.
  for (Rank rank = 0; rank < 8; ++rank) {
    const Program program = schedule.program(rank);
    for (const Step& step : program.steps()) EXPECT_EQ(step.peer, 8);
  }
}

TEST(NcclNvls, VerifiesAtEveryRankCountChannelCountAndAwkwardSize) {
  for (int ranks = 1; ranks <= 9; ++ranks)
    for (int channels : {1, 2, 3})
      for (Elements elements : elementCountsFor(ranks))
        for (std::int64_t shard : {std::int64_t{4096}, std::int64_t{128 * 1024}}) {
          const Schedule schedule = nvls(ranks, elements, {.chunkBytes = shard, .channels = channels});
          const VerificationReport report = verify(schedule);
          EXPECT_TRUE(report.ok()) << schedule.description() << " on " << ranks << " ranks, " << elements << " elements: "
                                   << report.message;
        }
}

TEST(NcclNvls, EachGpuMovesTheBufferAndOneShareOfItEachWay) {
  // S (1 + 1/N) out (every shard to the switch, then its own sum's store) and in (its sum, then every store):
  // what makes NVLS's busbw 2(N-1)/(N+1) of a link's, against the ring's 1.
  constexpr int kRanks = 8;
  constexpr Elements kElements = kRanks * 1024 * 64;
  const Schedule schedule = nvls(kRanks, kElements, {.channels = 2});
  const double buffer = kElements * 4.0;
  for (const RankTraffic& rank : trafficPerRank(schedule)) {
    EXPECT_DOUBLE_EQ(rank.bytesSent, buffer * (1 + 1.0 / kRanks)) << "rank " << rank.rank;
    EXPECT_DOUBLE_EQ(rank.bytesReceived, buffer * (1 + 1.0 / kRanks)) << "rank " << rank.rank;
  }
  EXPECT_EQ(trafficPerRank(schedule).size(), 8u) << "the switch is no rank";
  const RankTraffic nvswitch = trafficOf(schedule.program(kRanks), 4);
  EXPECT_DOUBLE_EQ(nvswitch.bytesReceived, buffer * (kRanks + 1));
  EXPECT_DOUBLE_EQ(nvswitch.bytesSent, buffer * (kRanks + 1));
}

TEST(NcclNvls, ClosedFormEqualsTheScheduleWalk) {
  const CostModel model({1}, {LinkCost{0.7e-6, 1 / 41.3e9}}, 1 / 211.0e9);
  for (int ranks : {2, 3, 5, 8})
    for (int channels : {1, 3})
      for (Elements elements : {Elements{1}, Elements{ranks}, Elements{1000}, Elements{100'003}}) {
        const AlgorithmOptions options{.chunkBytes = 512, .channels = channels};
        const Schedule schedule = nvls(ranks, elements, options);
        const CollectiveSpec& spec = schedule.spec();
        const CostModel levels({ranks}, {model.link(0)}, model.reduceSeconds(1));
        EXPECT_NEAR(kNcclNvlsAllreduce.closedFormSeconds(spec, options, levels), walkSeconds(schedule, levels),
                    1e-12 * walkSeconds(schedule, levels))
            << schedule.description() << ", " << ranks << " ranks, " << elements << " elements";
      }
}

TEST(NcclNvls, RunsOnlyAsOneScheduleOverOneNode) {
  try {
    makeGroupedSchedule(kNcclNvlsAllreduce, {CollectiveKind::Allreduce, 16, 1024, 4}, 8, RankGroups::WithinGroups, {});
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "algorithm");
  }
  EXPECT_THROW(refuseSwitchReduction(kNcclNvlsAllreduce, "--algorithm", ", which ddlrun's transports have no part for"),
               InvalidArgument);
  EXPECT_NO_THROW(refuseSwitchReduction(kNcclRingAllreduce, "--algorithm", ""));
}

TEST(NcclNvls, HasNoMscclForm) {
  std::ostringstream out;
  try {
    writeMscclXml(out, nvls(8, 8 * 1024));
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "--msccl-xml");
    EXPECT_NE(std::string(error.what()).find("switch"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ddl::testing
