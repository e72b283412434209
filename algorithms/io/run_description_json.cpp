#include "algorithms/io/run_description_json.hpp"

#include <cstdint>
#include <variant>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/option_table.hpp"
#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/parallelism.hpp"
#include "common/limits.hpp"
#include "common/nearest_name.hpp"

namespace ddl {

nlohmann::json runDescriptionToJson(const RunDescription& run) {
  nlohmann::json json = {{"tool", run.tool}, {"version", run.version}, {"commit", run.commit}, {"transport", run.transport}};
  if (run.computeScale) json["compute_scale"] = *run.computeScale;
  if (run.precision) json["precision"] = *run.precision;
  if (run.computePrecision) json["compute_precision"] = *run.computePrecision;
  if (run.fusion) json["fusion"] = *run.fusion;
  if (run.parallelism) json["parallelism"] = *run.parallelism;
  if (run.engine) json["engine"] = *run.engine;
  if (!run.effects.empty()) {
    for (const auto& [key, value] : run.effects) {
      // The seed is an integer, which the reader, refusing 1.0 where an integer belongs, reads back.
      if (key == "seed") {
        json["effects"][key] = static_cast<std::uint64_t>(value);
      } else {
        json["effects"][key] = value;
      }
    }
    if (!run.gpuTimeFactors.empty()) json["effects"]["gpu_time_factors"] = run.gpuTimeFactors;
    if (!run.jobTimeFactors.empty()) json["effects"]["job_time_factors"] = run.jobTimeFactors;
  }
  return json;
}

RunDescription runDescriptionFromJson(const JsonReader& reader, const nlohmann::json& json) {
  reader.object(json);
  reader.allowOnly(json, {"tool", "version", "commit", "transport", "compute_scale", "precision", "compute_precision",
                          "fusion", "parallelism", "engine", "effects"});
  RunDescription run;
  run.tool = reader.stringAt(json, "tool");
  run.version = reader.stringAt(json, "version");
  run.commit = reader.stringAt(json, "commit");
  run.transport = reader.stringAt(json, "transport");
  if (reader.has(json, "compute_scale")) run.computeScale = reader.numberAt(json, "compute_scale", 1e-6, 1000);
  if (reader.has(json, "precision")) run.precision = reader.stringAt(json, "precision");
  if (reader.has(json, "compute_precision")) run.computePrecision = reader.stringAt(json, "compute_precision");
  if (reader.has(json, "fusion")) {
    run.fusion = reader.stringAt(json, "fusion");
    if (!fusionPolicyNamed(*run.fusion)) reader.at("fusion").fail("'" + *run.fusion + "' is not size, ddp, horovod or per-layer");
  }
  if (reader.has(json, "parallelism")) {
    run.parallelism = reader.stringAt(json, "parallelism");
    if (!parallelismNamed(*run.parallelism))
      reader.at("parallelism").fail("'" + *run.parallelism + "' is not one of " + listOfNames(kParallelismNames));
  }
  if (reader.has(json, "engine")) {
    run.engine = reader.stringAt(json, "engine");
    if (*run.engine != "message" && *run.engine != "step") reader.at("engine").fail("'" + *run.engine + "' is not message or step");
  }
  if (reader.has(json, "effects")) {
    const JsonReader at = reader.at("effects");
    const auto& effects = at.object(json["effects"]);
    std::vector<std::string_view> keys{"seed", "gpu_time_factors", "job_time_factors"};
    for (const EffectDeclaration& declaration : effectTable()) keys.push_back(declaration.key);
    at.allowOnly(effects, keys);
    if (at.has(effects, "seed")) run.effects["seed"] = static_cast<double>(at.integerAt(effects, "seed", 0, 1LL << 53));
    for (const EffectDeclaration& declaration : effectTable()) {
      const std::string key(declaration.key);
      if (at.has(effects, key)) run.effects[key] = at.numberAt(effects, key, 0, declaration.maximum);
    }
    if (at.has(effects, "gpu_time_factors")) run.gpuTimeFactors = at.stringAt(effects, "gpu_time_factors");
    if (at.has(effects, "job_time_factors")) run.jobTimeFactors = at.stringAt(effects, "job_time_factors");
  }
  return run;
}

nlohmann::json algorithmParametersToJson(const AlgorithmOptions& options) {
  nlohmann::json json = nlohmann::json::object();
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    const std::optional<OptionValue> value = option.get(options);
    if (value) std::visit([&](const auto& v) { json[std::string(option.key)] = v; }, *value);
  }
  return json;
}

AlgorithmOptions algorithmParametersFromJson(const JsonReader& reader, const nlohmann::json& json) {
  reader.object(json);
  std::vector<std::string_view> keys;
  for (const OptionDeclaration& option : algorithmOptionTable()) keys.push_back(option.key);
  reader.allowOnly(json, keys);
  AlgorithmOptions options;
  for (const OptionDeclaration& option : algorithmOptionTable()) {
    const std::string key(option.key);
    if (!reader.has(json, key)) continue;
    const JsonReader at = reader.at(key);
    switch (option.type) {
      case OptionType::Grid: {
        std::vector<int> grid;
        const auto& list = at.array(json[key]);
        for (std::size_t i = 0; i < list.size(); ++i) grid.push_back(static_cast<int>(at.at(i).integer(list[i], 1, kMaxRanks)));
        option.set(options, grid);
        break;
      }
      case OptionType::Count:
      case OptionType::Bytes: option.set(options, at.integer(json[key], option.minimum, option.maximum)); break;
      case OptionType::AlgorithmName: option.set(options, at.string(json[key])); break;
    }
  }
  return options;
}

}  // namespace ddl
