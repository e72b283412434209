#include "algorithms/io/results_json.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/io/measured_effects_json.hpp"
#include "algorithms/io/run_description_json.hpp"
#include "common/json_reader.hpp"

namespace ddl {
namespace {

// ddlsim --samples: each quantity's percentiles, under its name with _p05, _p50 and _p95.
struct IntervalField {
  const char* name;
  Percentiles PredictiveInterval::*percentiles;
  double maximum;
};
constexpr IntervalField kIntervalFields[] = {{"iteration_s", &PredictiveInterval::iterationSeconds, 1e9},
                                             {"images_per_s", &PredictiveInterval::imagesPerSecond, 1e18},
                                             {"efficiency", &PredictiveInterval::efficiency, 1e6}};
constexpr std::pair<const char*, double Percentiles::*> kPercentiles[] = {
    {"_p05", &Percentiles::p05}, {"_p50", &Percentiles::p50}, {"_p95", &Percentiles::p95}};

void writeInterval(const PredictiveInterval& interval, nlohmann::json& entry) {
  entry["samples"] = interval.samples;
  for (const IntervalField& field : kIntervalFields)
    for (const auto& [suffix, member] : kPercentiles) entry[std::string(field.name) + suffix] = (interval.*field.percentiles).*member;
}

// All of an interval's fields or none; each quantity's percentiles in order.
std::optional<PredictiveInterval> readInterval(const JsonReader& p, const nlohmann::json& entry) {
  std::vector<std::string> keys{"samples"};
  for (const IntervalField& field : kIntervalFields)
    for (const auto& [suffix, member] : kPercentiles) keys.push_back(std::string(field.name) + suffix);
  const auto given = std::count_if(keys.begin(), keys.end(), [&](const std::string& key) { return p.has(entry, key); });
  if (given == 0) return std::nullopt;
  for (const std::string& key : keys)
    if (!p.has(entry, key)) p.at(key).fail("missing: a point with samples has every percentile and the count");
  PredictiveInterval interval;
  interval.samples = static_cast<int>(p.integerAt(entry, "samples", 1, 1 << 24));
  for (const IntervalField& field : kIntervalFields) {
    Percentiles& percentiles = interval.*field.percentiles;
    for (const auto& [suffix, member] : kPercentiles)
      percentiles.*member = p.numberAt(entry, std::string(field.name) + suffix, 0, field.maximum);
    if (percentiles.p05 > percentiles.p50 || percentiles.p50 > percentiles.p95)
      p.at(std::string(field.name) + "_p50").fail("the percentiles must not decrease: p05 <= p50 <= p95");
  }
  return interval;
}

}  // namespace

nlohmann::json resultsToJson(const ScalingResults& results) {
  nlohmann::json points = nlohmann::json::array();
  for (const ScalingPoint& point : results.points) {
    nlohmann::json collectives = nlohmann::json::array();
    for (const CollectiveMeasurement& c : point.collectives) {
      collectives.push_back({{"collective", c.collective},
                             {"bytes", c.bytes},
                             {"time_s", c.seconds},
                             {"algbw_Bps", c.algbwBps},
                             {"busbw_Bps", c.busbwBps}});
      if (!c.chosen.empty()) collectives.back()["chosen"] = c.chosen;
    }
    nlohmann::json entry = {{"configuration", point.configuration},
                      {"gpus", point.gpus},
                      {"hosts", point.hosts},
                      {"ranks_per_host", point.ranksPerHost},
                      {"algorithm", point.algorithmName},
                      {"parameters", algorithmParametersToJson(point.parameters)},
                      {"label", point.label},
                      {"batch_per_gpu", point.batchPerGpu},
                      {"iteration_s", point.iterationSeconds},
                      {"compute_s", point.computeSeconds},
                      {"baseline_gpus", point.baselineGpus},
                      {"baseline_s", point.baselineIterationSeconds()},
                      {"images_per_s", point.imagesPerSecond()},
                      {"efficiency", point.efficiency()},
                      {"exposed_comm_s", point.exposedCommunicationSeconds()},
                      {"collectives", std::move(collectives)}};
    // What a file from before these fields did not record stays unrecorded when it is written again.
    if (point.hosts == 0) entry.erase("hosts");
    if (point.ranksPerHost == 0) entry.erase("ranks_per_host");
    if (point.exposedLatencySeconds) {
      entry["exposed_latency_s"] = *point.exposedLatencySeconds;
      entry["exposed_bandwidth_s"] = point.exposedBandwidthSeconds();
    }
    if (point.interval) writeInterval(*point.interval, entry);
    if (point.efficiencyRange) entry["efficiency_range"] = {point.efficiencyRange->first, point.efficiencyRange->second};
    if (point.evenedBucketChange) entry["evened_bucket_change"] = *point.evenedBucketChange;
    if (point.measuredEffects) entry["measured_effects"] = measuredEffectsToJson(*point.measuredEffects);
    points.push_back(std::move(entry));
  }
  nlohmann::json document = {{"source", results.source}, {"run", runDescriptionToJson(results.run)},
                             {"scenario", results.scenario}, {"topology", results.topology},
                             {"model", results.model},   {"gpu", results.gpu},           {"points", std::move(points)}};
  if (results.topology.empty()) document.erase("topology");  // ddlrun's points ran on the job's machines
  if (results.run.tool.empty()) document.erase("run");
  requireFiniteNumbers(document, "the results");
  return document;
}

ScalingResults resultsFromJson(const nlohmann::json& json, const std::string& source) {
  const JsonReader root(source);
  root.allowOnly(json, {"source", "run", "scenario", "topology", "model", "gpu", "points"});
  ScalingResults results;
  results.source = root.stringAt(json, "source");
  // Files written before the provenance fields existed have none of them (analysis/results/), and stay readable.
  if (root.has(json, "run")) results.run = runDescriptionFromJson(root.at("run"), json["run"]);
  for (auto [field, key] : {std::pair{&results.scenario, "scenario"}, {&results.topology, "topology"},
                            {&results.model, "model"}, {&results.gpu, "gpu"}})
    if (root.has(json, key)) *field = root.stringAt(json, key);
  const JsonReader pointsReader = root.at("points");
  const auto& points = pointsReader.array(root.member(json, "points"));
  for (std::size_t i = 0; i < points.size(); ++i) {
    const JsonReader p = pointsReader.at(i);
    const auto& entry = points[i];
    p.allowOnly(entry, {"configuration", "gpus", "hosts", "ranks_per_host", "algorithm", "parameters", "label", "batch_per_gpu",
                        "iteration_s", "compute_s", "baseline_gpus", "baseline_s", "images_per_s", "efficiency", "exposed_comm_s",
                        "exposed_latency_s", "exposed_bandwidth_s", "efficiency_range", "evened_bucket_change", "measured_effects",
                        "collectives", "samples", "iteration_s_p05", "iteration_s_p50", "iteration_s_p95", "images_per_s_p05",
                        "images_per_s_p50", "images_per_s_p95", "efficiency_p05", "efficiency_p50", "efficiency_p95"});
    ScalingPoint point;
    point.configuration = p.has(entry, "configuration") ? p.stringAt(entry, "configuration") : results.scenario;
    point.gpus = static_cast<int>(p.integerAt(entry, "gpus", 1, 1 << 24));
    if (p.has(entry, "hosts")) point.hosts = static_cast<int>(p.integerAt(entry, "hosts", 1, 1 << 24));
    if (p.has(entry, "ranks_per_host")) point.ranksPerHost = static_cast<int>(p.integerAt(entry, "ranks_per_host", 1, 1 << 24));
    point.algorithmName = p.stringAt(entry, "algorithm");
    if (p.has(entry, "parameters")) point.parameters = algorithmParametersFromJson(p.at("parameters"), entry["parameters"]);
    // Before "label", "algorithm" held the label ("ddl 4x16x4").
    point.label = p.has(entry, "label") ? p.stringAt(entry, "label") : point.algorithmName;
    point.batchPerGpu = static_cast<int>(p.integerAt(entry, "batch_per_gpu", 0, 1 << 24));
    point.iterationSeconds = p.numberAt(entry, "iteration_s", 0, 1e9);
    point.computeSeconds = p.numberAt(entry, "compute_s", 0, 1e9);
    // Files from before the baseline was recorded measured against one GPU's compute; a baseline of more
    // GPUs needs its time.
    if (p.has(entry, "baseline_gpus")) point.baselineGpus = static_cast<int>(p.integerAt(entry, "baseline_gpus", 1, 1 << 24));
    if (p.has(entry, "baseline_s")) point.baselineSeconds = p.numberAt(entry, "baseline_s", 0, 1e9);
    if (point.baselineGpus > 1 && !point.baselineSeconds)
      p.at("baseline_s").fail("missing: the iteration at baseline_gpus (" + std::to_string(point.baselineGpus) + ")");
    // The split of the exposed time comes whole: both parts, adding up to it.
    if (p.has(entry, "exposed_latency_s") != p.has(entry, "exposed_bandwidth_s"))
      p.at(p.has(entry, "exposed_latency_s") ? "exposed_bandwidth_s" : "exposed_latency_s").fail("missing: the split needs both parts");
    if (p.has(entry, "exposed_latency_s")) {
      const double exposed = point.exposedCommunicationSeconds();
      const double latency = p.numberAt(entry, "exposed_latency_s", 0, 1e9);
      const double bandwidth = p.numberAt(entry, "exposed_bandwidth_s", 0, 1e9);
      if (std::abs(latency + bandwidth - exposed) > 1e-9 * std::max(1.0, exposed))
        p.at("exposed_latency_s").fail("with exposed_bandwidth_s, " + std::to_string(latency + bandwidth) +
                                       " s, not iteration_s - compute_s = " + std::to_string(exposed) + " s");
      point.exposedLatencySeconds = std::min(latency, exposed);
    }
    if (p.has(entry, "evened_bucket_change")) point.evenedBucketChange = p.numberAt(entry, "evened_bucket_change", 0, 1);
    point.interval = readInterval(p, entry);
    if (p.has(entry, "efficiency_range")) {
      // Files from before --samples: [pessimistic, optimistic], the efficiency at each end of the effects' ranges. Each is a simulation
      // of its own, so neither is held to the point's efficiency, which effects that interact can put outside.
      const JsonReader at = p.at("efficiency_range");
      const auto& ends = at.array(entry["efficiency_range"]);
      if (ends.size() != 2) at.fail("expected [pessimistic, optimistic]");
      point.efficiencyRange = {at.at(0).number(ends[0], 0, 1e6), at.at(1).number(ends[1], 0, 1e6)};
    }
    if (p.has(entry, "measured_effects"))
      point.measuredEffects = measuredEffectsFromJson(p.at("measured_effects"), entry["measured_effects"], point.gpus);
    if (p.has(entry, "collectives")) {
      const JsonReader cs = p.at("collectives");
      const auto& list = cs.array(entry["collectives"]);
      for (std::size_t k = 0; k < list.size(); ++k) {
        const JsonReader c = cs.at(k);
        c.allowOnly(list[k], {"collective", "bytes", "time_s", "algbw_Bps", "busbw_Bps", "chosen"});
        point.collectives.push_back({c.stringAt(list[k], "collective"), c.numberAt(list[k], "bytes", 0, 1e18),
                                     c.numberAt(list[k], "time_s", 0, 1e9), c.numberAt(list[k], "algbw_Bps", 0, 1e18),
                                     c.numberAt(list[k], "busbw_Bps", 0, 1e18),
                                     c.has(list[k], "chosen") ? c.stringAt(list[k], "chosen") : std::string()});
      }
    }
    results.points.push_back(std::move(point));
  }
  return results;
}

}  // namespace ddl
