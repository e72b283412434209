#include <gtest/gtest.h>

#include "algorithms/cost/cost_model.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

TEST(CostModel, AMessageCrossesTheOutermostLevelWhereItsRanksDiffer) {
  // 4 GPUs per host x 8 hosts per rack x 2 racks.
  const CostModel model({4, 8, 2}, {{1, 0}, {2, 0}, {3, 0}}, 0);
  EXPECT_EQ(model.levelBetween(0, 3), 0);
  EXPECT_EQ(model.levelBetween(0, 4), 1);
  EXPECT_EQ(model.levelBetween(5, 30), 1);
  EXPECT_EQ(model.levelBetween(3, 32), 2);
  EXPECT_EQ(model.levelBetween(63, 31), 2);
  EXPECT_EQ(model.ranks(), 64);
}

TEST(CostModel, ChargesAlphaPlusBytesTimesBetaAndBytesTimesGamma) {
  const CostModel model = CostModel::uniform(8, {2e-6, 1e-9}, 1e-10);
  EXPECT_DOUBLE_EQ(model.messageSeconds(0, 5, 1000), 2e-6 + 1e-6);
  EXPECT_DOUBLE_EQ(model.reduceSeconds(1000), 1e-7);
}

TEST(CostModel, RejectsMismatchedOrNegativeParameters) {
  EXPECT_THROW(CostModel({4, 2}, {{1, 0}}, 0), InvalidArgument);
  EXPECT_THROW(CostModel({4}, {{-1, 0}}, 0), InvalidArgument);
  EXPECT_THROW(CostModel({0}, {{1, 0}}, 0), InvalidArgument);
  EXPECT_THROW(CostModel({4}, {{1, 0}}, -1), InvalidArgument);
}

}  // namespace
}  // namespace ddl
