// The host reductions, the reference every transport and the GPU kernels are held to: each operator on each
// element type gives what the operator means on that type, element by element, in place and out of place;
// integers wrap instead of saturating; the 16-bit floats round once; an average's division truncates integers
// toward zero, as NCCL's ncclAvg does.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/host_reduce.hpp"
#include "runtime/narrow_floats.hpp"

namespace ddl {
namespace {

template <class T>
std::vector<T> reduced(std::vector<T> local, const std::vector<T>& from, DataType type, ReduceOp op, bool inPlace) {
  std::vector<T> into(local.size());
  T* out = inPlace ? local.data() : into.data();
  reduceInto(out, local.data(), from.data(), local.size(), type, op);
  return inPlace ? local : into;
}

TEST(HostReduce, EachOperatorMeansWhatItSaysOnFloats) {
  const std::vector<float> a{1.5f, -2, 3, 0}, b{2, 4, -1, -0.5f};
  for (bool inPlace : {true, false}) {
    EXPECT_EQ(reduced(a, b, DataType::Float32, ReduceOp::Sum, inPlace), (std::vector<float>{3.5f, 2, 2, -0.5f}));
    EXPECT_EQ(reduced(a, b, DataType::Float32, ReduceOp::Product, inPlace), (std::vector<float>{3, -8, -3, -0.0f}));
    EXPECT_EQ(reduced(a, b, DataType::Float32, ReduceOp::Min, inPlace), (std::vector<float>{1.5f, -2, -1, -0.5f}));
    EXPECT_EQ(reduced(a, b, DataType::Float32, ReduceOp::Max, inPlace), (std::vector<float>{2, 4, 3, 0}));
  }
  const std::vector<double> x{1e300, -3}, y{1e300, 7};
  EXPECT_EQ(reduced(x, y, DataType::Float64, ReduceOp::Max, false), (std::vector<double>{1e300, 7}));
  EXPECT_EQ(reduced(x, y, DataType::Float64, ReduceOp::Product, false)[1], -21.0);
}

TEST(HostReduce, IntegersWrapOnOverflowAsTwosComplement) {
  const std::vector<std::int8_t> a{127, -128, 100, -5}, b{1, -1, 3, 7};
  EXPECT_EQ(reduced(a, b, DataType::Int8, ReduceOp::Sum, true), (std::vector<std::int8_t>{-128, 127, 103, 2}));
  EXPECT_EQ(reduced(a, b, DataType::Int8, ReduceOp::Product, false), (std::vector<std::int8_t>{127, -128, 44, -35}));
  EXPECT_EQ(reduced(a, b, DataType::Int8, ReduceOp::Min, false), (std::vector<std::int8_t>{1, -128, 3, -5}));
  const std::vector<std::uint8_t> u{250, 3}, v{10, 200};
  EXPECT_EQ(reduced(u, v, DataType::UInt8, ReduceOp::Sum, false), (std::vector<std::uint8_t>{4, 203}));
  EXPECT_EQ(reduced(u, v, DataType::UInt8, ReduceOp::Max, false), (std::vector<std::uint8_t>{250, 200}));
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(reduced(std::vector<std::int32_t>{big, -7}, {1, 3}, DataType::Int32, ReduceOp::Sum, true),
            (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -4}));
  const std::int64_t huge = std::int64_t{1} << 62;
  EXPECT_EQ(reduced(std::vector<std::int64_t>{huge, 5}, {4, -6}, DataType::Int64, ReduceOp::Product, false),
            (std::vector<std::int64_t>{0, -30}));  // 2^64 wraps to 0
}

TEST(HostReduce, SixteenBitFloatsCombineInFloatAndRoundOnce) {
  const std::vector<std::uint16_t> a{floatToFloat16(1.0f), floatToFloat16(-3.0f)}, b{floatToFloat16(2048.0f), floatToFloat16(0.5f)};
  const auto sum = reduced(a, b, DataType::Float16, ReduceOp::Sum, false);
  EXPECT_EQ(float16ToFloat(sum[0]), 2048.0f);  // 2049 is not a float16: rounds to even
  EXPECT_EQ(float16ToFloat(sum[1]), -2.5f);
  const auto product = reduced(a, b, DataType::Float16, ReduceOp::Product, false);
  EXPECT_EQ(float16ToFloat(product[1]), -1.5f);
  const std::vector<std::uint16_t> c{floatToBfloat16(-1.0f), floatToBfloat16(4.0f)}, d{floatToBfloat16(2.0f), floatToBfloat16(-8.0f)};
  const auto least = reduced(c, d, DataType::BFloat16, ReduceOp::Min, true);
  EXPECT_EQ(bfloat16ToFloat(least[0]), -1.0f);
  EXPECT_EQ(bfloat16ToFloat(least[1]), -8.0f);
  const auto most = reduced(c, d, DataType::BFloat16, ReduceOp::Max, false);
  EXPECT_EQ(bfloat16ToFloat(most[1]), 4.0f);
}

TEST(HostReduce, AnAverageDividesFloatsExactlyAndIntegersTowardZero) {
  std::vector<float> floats{3, -3, 1};
  divideElements(floats.data(), floats.size(), DataType::Float32, 2);
  EXPECT_EQ(floats, (std::vector<float>{1.5f, -1.5f, 0.5f}));
  std::vector<std::int32_t> ints{7, -7, 1};
  divideElements(ints.data(), ints.size(), DataType::Int32, 2);
  EXPECT_EQ(ints, (std::vector<std::int32_t>{3, -3, 0}));
  std::vector<std::uint16_t> halves{floatToFloat16(1.0f)};
  divideElements(halves.data(), 1, DataType::Float16, 3);
  EXPECT_EQ(halves[0], floatToFloat16(1.0f / 3.0f));
}

}  // namespace
}  // namespace ddl
