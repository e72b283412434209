// Scaling results read back what they were written with: the baseline and the split of the exposed time,
// which come whole or not at all, and ddlrun's measured effects, whose estimates are derived, never read.

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

TEST(ResultsJson, AnEvenedPointSaysByHowMuchAndAPointAsGivenSaysNothing) {
  ScalingResults results = onePoint();
  EXPECT_FALSE(resultsToJson(results)["points"][0].contains("evened_bucket_change"));
  results.points[0].evenedBucketChange = 0.00105;
  const nlohmann::json json = resultsToJson(results);
  EXPECT_DOUBLE_EQ(json["points"][0]["evened_bucket_change"].get<double>(), 0.00105);
  EXPECT_DOUBLE_EQ(resultsFromJson(json, "r.json").points.front().evenedBucketChange.value_or(0), 0.00105);
  nlohmann::json edited = json;
  edited["points"][0]["evened_bucket_change"] = 2;  // a change of 200%: no bucket is evened so
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].evened_bucket_change");
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

TEST(ResultsJson, AnIntervalReadsBackWholeWithItsPercentilesInOrder) {
  ScalingResults results = onePoint();
  EXPECT_FALSE(resultsToJson(results)["points"][0].contains("samples"));
  results.points[0].interval = PredictiveInterval{64, {0.19, 0.21, 0.25}, {2048, 2438, 2694}, {0.72, 0.857, 0.947}};
  const nlohmann::json json = resultsToJson(results);
  EXPECT_EQ(json["points"][0]["samples"], 64);
  EXPECT_DOUBLE_EQ(json["points"][0]["efficiency_p05"].get<double>(), 0.72);
  EXPECT_DOUBLE_EQ(json["points"][0]["images_per_s_p50"].get<double>(), 2438);
  EXPECT_DOUBLE_EQ(json["points"][0]["iteration_s_p95"].get<double>(), 0.25);
  EXPECT_EQ(resultsToJson(resultsFromJson(json, "r.json")), json);
  nlohmann::json edited = json;
  edited["points"][0].erase("iteration_s_p05");
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].iteration_s_p05");
  edited = json;
  edited["points"][0]["efficiency_p05"] = 0.9;  // above the median
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].efficiency_p50");
  edited = json;
  edited["points"][0]["samples"] = 0;
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].samples");
}

// A two-rank point as ddlrun train writes it.
ScalingResults measuredPoint() {
  ScalingResults results = onePoint();
  results.source = "ddlrun";
  ScalingPoint& point = results.points.front();
  point.gpus = 2;
  point.exposedLatencySeconds.reset();
  MeasuredEffects effects;
  effects.compute = "busy host cores";
  effects.iterations = 5;
  effects.computeAloneSeconds = {0.1, 0.104};
  effects.computeAloneDeviationSeconds = {0.001, 0.002};
  effects.computeOverlappedSeconds = {0.11, 0.113};
  effects.overlapSeconds = {0.05, 0.06};
  effects.allreduceOverheadSeconds = {2e-5, 3e-5};
  point.measuredEffects = effects;
  return results;
}

TEST(ResultsJson, MeasuredEffectsReadBackWithTheirEstimates) {
  const nlohmann::json json = resultsToJson(measuredPoint());
  const nlohmann::json& estimates = json["points"][0]["measured_effects"]["estimates"];
  for (const char* key : {"compute_jitter", "gpu_speed_spread", "overlap_slowdown", "allreduce_overhead_s"})
    EXPECT_TRUE(estimates.contains(key)) << key;
  // s = D / (A - D): a stretch of 0.019 s over an overlap of 0.11 s.
  EXPECT_NEAR(estimates["overlap_slowdown"].get<double>(), 0.019 / (0.11 - 0.019), 1e-12);
  const ScalingResults back = resultsFromJson(json, "r.json");
  ASSERT_TRUE(back.points.front().measuredEffects);
  EXPECT_EQ(back.points.front().measuredEffects->computeOverlappedSeconds, (std::vector<double>{0.11, 0.113}));
  EXPECT_EQ(resultsToJson(back), json);
}

TEST(ResultsJson, MeasuredEffectsNeedAFigurePerRankAndEstimatesThatFollowFromThem) {
  const nlohmann::json json = resultsToJson(measuredPoint());
  nlohmann::json edited = json;
  edited["points"][0]["measured_effects"]["overlap_s"] = {0.05};
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].measured_effects.overlap_s");
  edited = json;
  edited["points"][0]["measured_effects"]["estimates"]["overlap_slowdown"] = 0.5;
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].measured_effects.estimates.overlap_slowdown");
  edited = json;
  edited["points"][0]["measured_effects"]["estimates"].erase("compute_jitter");
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].measured_effects.estimates.compute_jitter");
  edited = json;
  edited["points"][0]["measured_effects"]["overlap_s"] = {0, 0};  // no overlap: no slowdown to estimate
  EXPECT_EQ(faultyField(edited), "r.json: $.points[0].measured_effects.estimates.overlap_slowdown");
}

}  // namespace
}  // namespace ddl
