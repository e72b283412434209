#include "algorithms/io/measured_effects_json.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ddl {
namespace {

// The estimates by their scenario keys (iteration_effects.cpp), in the order they are written.
const std::vector<std::pair<const char*, std::function<std::optional<double>(const MeasuredEffects&)>>>& estimators() {
  static const std::vector<std::pair<const char*, std::function<std::optional<double>(const MeasuredEffects&)>>> table = {
      {"compute_jitter", &MeasuredEffects::computeJitter},
      {"gpu_speed_spread", &MeasuredEffects::gpuSpeedSpread},
      {"overlap_slowdown", &MeasuredEffects::overlapSlowdown},
      {"allreduce_overhead_s", &MeasuredEffects::allreduceOverhead},
  };
  return table;
}

}  // namespace

nlohmann::json measuredEffectsToJson(const MeasuredEffects& effects) {
  nlohmann::json estimates = nlohmann::json::object();
  for (const auto& [key, estimate] : estimators())
    if (const std::optional<double> value = estimate(effects)) estimates[key] = *value;
  return {{"compute", effects.compute},
          {"iterations", effects.iterations},
          {"compute_alone_s", effects.computeAloneSeconds},
          {"compute_alone_sd_s", effects.computeAloneDeviationSeconds},
          {"compute_overlapped_s", effects.computeOverlappedSeconds},
          {"overlap_s", effects.overlapSeconds},
          {"allreduce_overhead_s", effects.allreduceOverheadSeconds},
          {"estimates", std::move(estimates)}};
}

MeasuredEffects measuredEffectsFromJson(const JsonReader& reader, const nlohmann::json& json, int ranks) {
  reader.object(json);
  reader.allowOnly(json, {"compute", "iterations", "compute_alone_s", "compute_alone_sd_s", "compute_overlapped_s", "overlap_s",
                          "allreduce_overhead_s", "estimates"});
  MeasuredEffects effects;
  effects.compute = reader.stringAt(json, "compute");
  effects.iterations = static_cast<int>(reader.integerAt(json, "iterations", 1, 1 << 24));
  for (auto [list, key] : {std::pair{&effects.computeAloneSeconds, "compute_alone_s"},
                           {&effects.computeAloneDeviationSeconds, "compute_alone_sd_s"},
                           {&effects.computeOverlappedSeconds, "compute_overlapped_s"},
                           {&effects.overlapSeconds, "overlap_s"},
                           {&effects.allreduceOverheadSeconds, "allreduce_overhead_s"}}) {
    const JsonReader at = reader.at(key);
    const auto& values = at.array(reader.member(json, key));
    if (static_cast<int>(values.size()) != ranks)
      at.fail("expected one value per rank (" + std::to_string(ranks) + "), found " + std::to_string(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) list->push_back(at.at(i).number(values[i], 0, 1e9));
  }
  const JsonReader estimatesAt = reader.at("estimates");
  const nlohmann::json& estimates = estimatesAt.object(reader.member(json, "estimates"));
  std::vector<std::string_view> keys;
  for (const auto& [key, estimate] : estimators()) keys.emplace_back(key);
  estimatesAt.allowOnly(estimates, keys);
  for (const auto& [key, estimate] : estimators()) {
    const std::optional<double> derived = estimate(effects);
    const bool written = estimatesAt.has(estimates, key);
    if (written != derived.has_value())
      estimatesAt.at(key).fail(written ? "written, but the per-rank figures cannot identify it" : "missing: the per-rank figures identify it");
    if (!written) continue;
    const double value = estimatesAt.numberAt(estimates, key, -1e9, 1e9);
    if (std::abs(value - *derived) > 1e-9 * std::max(1.0, std::abs(*derived)))
      estimatesAt.at(key).fail(std::to_string(value) + ", but the per-rank figures give " + std::to_string(*derived));
  }
  return effects;
}

}  // namespace ddl
