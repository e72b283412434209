// Bad algorithm names and options are errors that name the field at fault.

#include <set>

#include <gtest/gtest.h>

#include "common/invalid_argument.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

std::string faultyField(const std::function<void()>& action) {
  try {
    action();
  } catch (const InvalidArgument& error) {
    return error.field();
  }
  return "(no error)";
}

TEST(Registry, NamesAreUniquePerCollectiveAndEveryAlgorithmIsDescribed) {
  std::set<std::pair<CollectiveKind, std::string_view>> seen;
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    EXPECT_TRUE(seen.emplace(algorithm->collective, algorithm->name).second) << algorithm->name;
    EXPECT_FALSE(algorithm->summary.empty()) << algorithm->name;
    EXPECT_EQ(&findAlgorithm(algorithm->collective, algorithm->name), algorithm);
  }
}

TEST(Registry, AnUnknownAlgorithmListsTheKnownOnes) {
  try {
    findAlgorithm(CollectiveKind::Allreduce, "butterfly");
    FAIL() << "no error";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "algorithm");
    EXPECT_NE(std::string(error.what()).find("halving-doubling"), std::string::npos) << error.what();
  }
}

TEST(Registry, RejectsBadShapesNamingTheField) {
  EXPECT_EQ(faultyField([] { allreduce("ring", 0, 10); }), "ranks");
  EXPECT_EQ(faultyField([] { allreduce("ring", 4, -1); }), "elements");
  EXPECT_EQ(faultyField([] { allreduce("ddl", 64, 10); }), "dims");
  EXPECT_EQ(faultyField([] { allreduce("ddl", 64, 10, {.dims = std::vector<int>{4, 4, 2}}); }), "dims");
  EXPECT_EQ(faultyField([] { allreduce("ddl", 16, 10, {.dims = std::vector<int>{2, 2, 2, 1, 2}}); }), "dims");
  EXPECT_EQ(faultyField([] { allreduce("ddl", 4, 10, {.dims = std::vector<int>{-2, -2}}); }), "dims");
  EXPECT_EQ(faultyField([] { allreduce("torus-2d", 12, 10, {.dims = std::vector<int>{2, 2, 3}}); }), "dims");
  EXPECT_EQ(faultyField([] { allreduce("hierarchical", 12, 10, {.ranksPerNode = 5}); }), "ranks-per-node");
  EXPECT_EQ(faultyField([] { allreduce("hierarchical", 12, 10); }), "ranks-per-node");
  EXPECT_EQ(faultyField([] { allreduce("double-binary-tree", 12, 10, {.chunkBytes = 0}); }), "chunk-bytes");
}

TEST(Registry, RejectsOptionsTheAlgorithmDoesNotTake) {
  EXPECT_EQ(faultyField([] { allreduce("ring", 4, 10, {.dims = std::vector<int>{2, 2}}); }), "dims");
  EXPECT_EQ(faultyField([] { allreduce("ddl", 4, 10, {.dims = std::vector<int>{2, 2}, .ranksPerNode = 2}); }),
            "ranks-per-node");
  EXPECT_EQ(faultyField([] { allreduce("hierarchical", 8, 10, {.ranksPerNode = 2, .inner = "ddl"}); }), "inner");
  EXPECT_EQ(faultyField([] { allreduce("hierarchical", 8, 10, {.ranksPerNode = 2, .inner = "nope"}); }), "inner");
  EXPECT_EQ(faultyField([] { allreduce("hierarchical", 8, 10, {.ranksPerNode = 2, .chunkBytes = 64}); }),
            "chunk-bytes");
}

TEST(ParseDims, ReadsSizesSeparatedByX) {
  EXPECT_EQ(parseDims("4x16x4"), (std::vector<int>{4, 16, 4}));
  EXPECT_EQ(parseDims("256"), (std::vector<int>{256}));
  for (const char* bad : {"", "4x", "x4", "4xx4", "4x-1", "4x0", "four", "4 x 4", "99999999999"})
    EXPECT_EQ(faultyField([&] { parseDims(bad); }), "dims") << bad;
}

}  // namespace
}  // namespace ddl::testing
