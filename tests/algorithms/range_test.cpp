#include <gtest/gtest.h>

#include "algorithms/schedule/range.hpp"

namespace ddl {
namespace {

TEST(BlockOf, BlocksTileTheRangeInOrder) {
  for (Elements count : {0, 1, 5, 7, 64, 1000003})
    for (int parts : {1, 2, 3, 7, 64, 1000}) {
      const Range whole{17, count};
      Elements next = whole.offset;
      for (int i = 0; i < parts; ++i) {
        const Range block = blockOf(whole, parts, i);
        EXPECT_EQ(block.offset, next) << count << " elements in " << parts << " parts, block " << i;
        next = block.end();
      }
      EXPECT_EQ(next, whole.end());
    }
}

TEST(BlockOf, SizesDifferByAtMostOneAndTheLargerBlocksComeFirst) {
  for (Elements count : {0, 1, 5, 7, 64, 1000003})
    for (int parts : {1, 2, 3, 7, 64, 1000}) {
      for (int i = 0; i + 1 < parts; ++i) {
        const Elements here = blockOf({0, count}, parts, i).count;
        const Elements next = blockOf({0, count}, parts, i + 1).count;
        EXPECT_TRUE(here == next || here == next + 1) << count << " / " << parts << " at " << i;
      }
      EXPECT_EQ(blockOf({0, count}, parts, 0).count, largestBlock(count, parts));
    }
}

TEST(Range, OverlapNeedsCommonElements) {
  EXPECT_TRUE((Range{0, 10}).overlaps({9, 5}));
  EXPECT_FALSE((Range{0, 10}).overlaps({10, 5}));
  EXPECT_FALSE((Range{3, 0}).overlaps({0, 10}));
}

}  // namespace
}  // namespace ddl
