// What `ddlrun bench` fills each rank's buffer with and how it checks the result: every element holds the
// pattern's value for its position and rank, a buffer holding the exact result counts no wrong element, and
// each element changed from it counts once, in every data type, at every offset within the pattern's period;
// out of place, the output starts unset and the input must be left as it was.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/bench/bench_collective.hpp"

namespace ddl {
namespace {

constexpr DataType kTypes[] = {DataType::Float32, DataType::Float64, DataType::Float16, DataType::BFloat16};

// A buffer of `count` elements of `type`, every byte 0xff (a NaN in every type) until written.
std::vector<unsigned char> buffer(Elements count, DataType type) {
  return std::vector<unsigned char>(static_cast<std::size_t>(count) * sizeOf(type), 0xff);
}

TEST(BenchPattern, FillsEveryElementWithItsPositionsValueFromAnyOffset) {
  for (const DataType type : kTypes) {
    for (const Elements offset : {0, 1, 16, 17, 40}) {
      const Elements count = 100;
      auto data = buffer(offset + count, type);
      writePeriodic(data.data(), {offset, count}, patternPhases(5, type), type);
      for (Elements i = 0; i < offset; ++i) EXPECT_TRUE(std::isnan(readValue(data.data(), i, type))) << i;
      for (Elements i = offset; i < offset + count; ++i)
        ASSERT_EQ(readValue(data.data(), i, type), patternValue(i, 5, type)) << toString(type) << " at " << i;
    }
  }
}

TEST(BenchPattern, RepeatsEveryPeriodAndTheSumIsTheSumOfTheRanksValues) {
  for (const DataType type : kTypes) {
    const int period = patternPeriod(type);
    for (Elements i = 0; i < 3 * period; ++i) {
      double sum = 0;
      for (Rank r = 0; r < 40; ++r) {
        EXPECT_EQ(patternValue(i, r, type), patternValue(i + period, r, type));
        sum += patternValue(i, r, type);
      }
      EXPECT_EQ(patternSum(i, 40, type), sum) << toString(type) << " at " << i;
    }
  }
}

// Each rank's filled buffer, summed element by element: what an exact allreduce leaves everywhere.
std::vector<unsigned char> exactSum(const BenchCollective& collective, Elements count, int ranks, DataType type) {
  auto sum = buffer(count, type);
  std::vector<double> total(static_cast<std::size_t>(count), 0);
  for (Rank r = 0; r < ranks; ++r) {
    auto mine = buffer(count, type);
    collective.fill(mine.data(), count, r, ranks, type);
    for (Elements i = 0; i < count; ++i) total[static_cast<std::size_t>(i)] += readValue(mine.data(), i, type);
  }
  for (Elements i = 0; i < count; ++i) writeValue(sum.data(), i, total[static_cast<std::size_t>(i)], type);
  return sum;
}

TEST(BenchCheck, AnExactAllreduceHasNoWrongElementAndEachChangedOneCountsOnce) {
  const BenchCollective& allreduce = benchCollective(CollectiveKind::Allreduce);
  for (const DataType type : kTypes) {
    const int ranks = 6;
    const Elements count = 53;
    auto result = exactSum(allreduce, count, ranks, type);
    for (Rank r = 0; r < ranks; ++r) EXPECT_EQ(allreduce.countWrong(result.data(), count, r, ranks, type), 0);
    writeValue(result.data(), 0, readValue(result.data(), 0, type) + 1, type);
    writeValue(result.data(), 35, std::nan(""), type);
    EXPECT_EQ(allreduce.countWrong(result.data(), count, 0, ranks, type), 2) << toString(type);
  }
}

TEST(BenchCheck, AReduceScatterIsCheckedOnItsOwnBlockOnly) {
  const BenchCollective& reduceScatter = benchCollective(CollectiveKind::ReduceScatter);
  const int ranks = 4;
  const Elements count = 40;  // blocks of 10
  auto result = exactSum(reduceScatter, count, ranks, DataType::Float32);
  writeValue(result.data(), 5, 1000, DataType::Float32);  // in rank 0's block
  EXPECT_EQ(reduceScatter.countWrong(result.data(), count, 0, ranks, DataType::Float32), 1);
  EXPECT_EQ(reduceScatter.countWrong(result.data(), count, 1, ranks, DataType::Float32), 0);
}

TEST(BenchCheck, AnAllGatherStartsWithOnlyItsOwnBlockAndEndsWithEveryRanks) {
  const BenchCollective& allGather = benchCollective(CollectiveKind::AllGather);
  for (const DataType type : kTypes) {
    const int ranks = 3;
    const Elements count = 31;
    auto gathered = buffer(count, type);
    for (Rank r = 0; r < ranks; ++r) {
      auto mine = buffer(count, type);
      allGather.fill(mine.data(), count, r, ranks, type);
      const Range block = blockOf({0, count}, ranks, r);
      for (Elements i = 0; i < count; ++i) {
        const bool own = i >= block.offset && i < block.end();
        EXPECT_EQ(std::isnan(readValue(mine.data(), i, type)), !own) << i;
        if (own) writeValue(gathered.data(), i, readValue(mine.data(), i, type), type);
      }
      EXPECT_EQ(allGather.countWrong(mine.data(), count, r, ranks, type), count - block.count);
    }
    EXPECT_EQ(allGather.countWrong(gathered.data(), count, 0, ranks, type), 0) << toString(type);
  }
}

// Out of place: an output no step wrote counts as wrong everywhere, and an input the run changed counts
// each changed element once, even where the new value is a NaN or a negative zero.
TEST(BenchCheck, OutOfPlaceAnUnwrittenOutputIsWrongEverywhereAndEachChangedInputElementCounts) {
  const Elements count = 50;
  for (const DataType type : kTypes) {
    auto output = buffer(count, type);
    writePeriodic(output.data(), {0, count}, patternPhases(0, type), type);
    writeUnset(output.data(), count, type);
    EXPECT_EQ(benchCollective(CollectiveKind::Allreduce).countWrong(output.data(), count, 0, 4, type), count) << toString(type);

    auto before = buffer(count, type), after = buffer(count, type);
    writePeriodic(before.data(), {0, count}, patternPhases(1, type), type);
    after = before;
    EXPECT_EQ(countChanged(before.data(), after.data(), count, type), 0);
    writeValue(after.data(), 3, std::nan(""), type);
    writeValue(after.data(), 40, readValue(before.data(), 40, type) == 0 ? -0.0 : 0.0, type);
    EXPECT_EQ(countChanged(before.data(), after.data(), count, type), 2) << toString(type);
  }
}

}  // namespace
}  // namespace ddl
