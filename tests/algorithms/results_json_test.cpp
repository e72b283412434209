// Scaling results read back what they were written with: the baseline and the split of the exposed time,
// which come whole or not at all.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "algorithms/io/results_json.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

ScalingResults onePoint() {
  ScalingResults results;
  results.source = "ddlsim";
  results.scenario = "s";
  ScalingPoint point;
  point.configuration = "s";
  point.gpus = 16;
  point.algorithmName = "ring";
  point.label = "ring";
  point.batchPerGpu = 32;
  point.iterationSeconds = 0.2;
  point.computeSeconds = 0.15;
  point.baselineGpus = 8;
  point.baselineSeconds = 0.18;
  point.exposedLatencySeconds = 0.01;
  results.points.push_back(point);
  return results;
}

std::string faultyField(const nlohmann::json& json) {
  try {
    resultsFromJson(json, "r.json");
  } catch (const InvalidArgument& error) {
    return error.field();
  }
  return "(no error)";
}

TEST(ResultsJson, TheBaselineAndTheSplitReadBackAsWritten) {
  const nlohmann::json json = resultsToJson(onePoint());
  EXPECT_DOUBLE_EQ(json["points"][0]["efficiency"].get<double>(), 0.18 / 0.2);
  EXPECT_DOUBLE_EQ(json["points"][0]["exposed_bandwidth_s"].get<double>(), 0.04);
  const ScalingPoint back = resultsFromJson(json, "r.json").points.front();
  EXPECT_EQ(back.baselineGpus, 8);
  EXPECT_DOUBLE_EQ(back.baselineIterationSeconds(), 0.18);
  ASSERT_TRUE(back.exposedLatencySeconds);
  EXPECT_DOUBLE_EQ(*back.exposedLatencySeconds, 0.01);
  EXPECT_EQ(resultsToJson(resultsFromJson(json, "r.json")), json);
}

TEST(ResultsJson, ABaselineOfManyGpusNeedsItsTimeAndASplitBothParts) {
  const nlohmann::json json = resultsToJson(onePoint());
  nlohmann::json edited = json;
  edited["points"][0].erase("baseline_s");
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].baseline_s");
  edited = json;
  edited["points"][0].erase("exposed_bandwidth_s");
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].exposed_bandwidth_s");
  edited = json;
  edited["points"][0]["exposed_latency_s"] = 0.06;  // with 0.04 of bandwidth, more than the 0.05 s exposed
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].exposed_latency_s");
  edited = json;
  edited["points"][0]["exposed_bandwidth_s"] = "0.04";
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].exposed_bandwidth_s");
  // Files from before both fields existed: one GPU's compute, no split.
  edited = json;
  for (const char* key : {"baseline_gpus", "baseline_s", "exposed_latency_s", "exposed_bandwidth_s"}) edited["points"][0].erase(key);
  const ScalingPoint old = resultsFromJson(edited, "r.json").points.front();
  EXPECT_EQ(old.baselineGpus, 1);
  EXPECT_DOUBLE_EQ(old.efficiency(), 0.15 / 0.2);
  EXPECT_FALSE(old.exposedLatencySeconds);
}

}  // namespace
}  // namespace ddl
