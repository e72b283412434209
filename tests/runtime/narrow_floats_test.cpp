// float16 and bfloat16 conversions: exact both ways for every representable value, round to nearest
// even in between, saturate to infinity past the largest finite value, and keep NaN a NaN. The GPU kernels
// round the same way, which is what lets the host check their sums bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/narrow_floats.hpp"

namespace ddl {
namespace {

bool isNan16(unsigned short bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0; }

TEST(Float16, EveryValueSurvivesTheRoundTripThroughFloat) {
  for (unsigned bits = 0; bits < 0x10000u; ++bits) {
    const auto h = static_cast<unsigned short>(bits);
    if (isNan16(h)) {
      EXPECT_TRUE(std::isnan(float16ToFloat(h)));
      EXPECT_TRUE(isNan16(floatToFloat16(float16ToFloat(h))));
      continue;
    }
    EXPECT_EQ(floatToFloat16(float16ToFloat(h)), h) << std::hex << bits;
  }
}

TEST(Float16, KnownValuesDecode) {
  EXPECT_EQ(float16ToFloat(0x3c00), 1.0f);
  EXPECT_EQ(float16ToFloat(0xc000), -2.0f);
  EXPECT_EQ(float16ToFloat(0x7bff), 65504.0f);           // largest finite
  EXPECT_EQ(float16ToFloat(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(float16ToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(float16ToFloat(0x7c00)));
}

TEST(Float16, RoundsToNearestEvenBetweenNeighbours) {
  // 2049 lies halfway between 2048 and 2050 (spacing 2): even mantissa wins, 2048.
  EXPECT_EQ(float16ToFloat(floatToFloat16(2049.0f)), 2048.0f);
  EXPECT_EQ(float16ToFloat(floatToFloat16(2051.0f)), 2052.0f);
  EXPECT_EQ(float16ToFloat(floatToFloat16(2049.5f)), 2050.0f);
  // Halfway between the two smallest subnormals rounds to the even one (zero).
  EXPECT_EQ(floatToFloat16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(floatToFloat16(std::ldexp(3.0f, -25)), 0x0002);
  // The largest subnormal rounds up into the smallest normal.
  EXPECT_EQ(floatToFloat16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)), 0x0400);
}

TEST(Float16, SaturatesToInfinityAndKeepsNan) {
  EXPECT_EQ(floatToFloat16(65519.0f), 0x7bff);  // below the halfway point to 65536
  EXPECT_EQ(floatToFloat16(65520.0f), 0x7c00);  // halfway: rounds to even, which is infinity
  EXPECT_EQ(floatToFloat16(1e30f), 0x7c00);
  EXPECT_EQ(floatToFloat16(-1e30f), 0xfc00);
  EXPECT_TRUE(isNan16(floatToFloat16(std::numeric_limits<float>::quiet_NaN())));
}

TEST(BFloat16, EveryValueSurvivesTheRoundTripAndTiesGoToEven) {
  for (unsigned bits = 0; bits < 0x10000u; ++bits) {
    const auto b = static_cast<unsigned short>(bits);
    const float value = bfloat16ToFloat(b);
    if (std::isnan(value)) continue;
    EXPECT_EQ(floatToBfloat16(value), b) << std::hex << bits;
  }
  // 257 is halfway between 256 and 258 (spacing 2 with 8 significant bits): even wins.
  EXPECT_EQ(bfloat16ToFloat(floatToBfloat16(257.0f)), 256.0f);
  EXPECT_EQ(bfloat16ToFloat(floatToBfloat16(259.0f)), 260.0f);
}

}  // namespace
}  // namespace ddl
