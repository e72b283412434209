#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "algorithms/io/schedule_json.hpp"
#include "common/invalid_argument.hpp"
#include "algorithms/verify/verifier.hpp"
#include "tests/algorithms/schedule_test_support.hpp"

namespace ddl::testing {
namespace {

nlohmann::json asJson(const Schedule& schedule) {
  std::stringstream text;
  writeScheduleJson(text, schedule);
  return nlohmann::json::parse(text);
}

TEST(ScheduleJson, EveryAlgorithmSurvivesARoundTrip) {
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    AlgorithmOptions options;
    if (algorithm->options & kDims) options.dims = std::vector<int>{2, 3};
    if (algorithm->options & kRanksPerNode) options.ranksPerNode = 2;
    const Schedule original = ddl::makeSchedule(*algorithm, {algorithm->collective, 6, 37, 4}, options);
    const Schedule loaded = scheduleFromJson(asJson(original), "test.json");
    EXPECT_EQ(loaded.spec().kind, original.spec().kind);
    EXPECT_EQ(loaded.description(), original.description());
    for (Rank rank = 0; rank < 6; ++rank) EXPECT_EQ(loaded.program(rank), original.program(rank)) << algorithm->name;
    EXPECT_TRUE(verify(loaded).ok()) << algorithm->name;
  }
}

TEST(ScheduleJson, WritesOneRankAlone) {
  std::stringstream text;
  writeScheduleJson(text, allreduce("ring", 4, 8), 2);
  const nlohmann::json json = nlohmann::json::parse(text);
  ASSERT_EQ(json["programs"].size(), 1u);
  EXPECT_EQ(json["programs"][0]["rank"], 2);
  EXPECT_EQ(json["programs"][0]["steps"][0]["op"], "send");
}

std::string faultyField(nlohmann::json json) {
  try {
    scheduleFromJson(json, "mine.json");
  } catch (const InvalidArgument& error) {
    return error.field();
  }
  return "(no error)";
}

TEST(ScheduleJson, NamesTheFileAndPathOfAnythingMalformed) {
  const nlohmann::json good = asJson(allreduce("ring", 2, 4));
  auto broken = [&](auto edit) {
    nlohmann::json copy = good;
    edit(copy);
    return faultyField(copy);
  };
  EXPECT_EQ(faultyField(good), "(no error)");
  EXPECT_EQ(broken([](auto& j) { j.erase("ranks"); }), "mine.json: $.ranks");
  EXPECT_EQ(broken([](auto& j) { j["collective"] = "broadcast"; }), "mine.json: $.collective");
  EXPECT_EQ(broken([](auto& j) { j["programs"][1]["steps"][0]["peer"] = "one"; }), "mine.json: $.programs[1].steps[0].peer");
  EXPECT_EQ(broken([](auto& j) { j["programs"][0]["steps"][1]["op"] = "multiply"; }), "mine.json: $.programs[0].steps[1].op");
  EXPECT_EQ(broken([](auto& j) { j["programs"][0]["steps"][0]["after"] = {0}; }),
            "mine.json: $.programs[0].steps[0].after[0]");
  EXPECT_EQ(broken([](auto& j) { j["programs"][0]["steps"][0]["count"] = -3; }), "mine.json: $.programs[0].steps[0].count");
  EXPECT_EQ(broken([](auto& j) { j["programs"].erase(1); }), "mine.json: $.programs");
  EXPECT_EQ(broken([](auto& j) { j["programs"][1]["rank"] = 0; }), "mine.json: $.programs[1].rank");
}

}  // namespace
}  // namespace ddl::testing
