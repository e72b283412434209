#include "algorithms/io/run_description_json.hpp"

#include <nlohmann/json.hpp>

#include "common/limits.hpp"

namespace ddl {

nlohmann::json runDescriptionToJson(const RunDescription& run) {
  nlohmann::json json = {{"tool", run.tool}, {"version", run.version}, {"commit", run.commit}, {"transport", run.transport}};
  if (run.computeScale) json["compute_scale"] = *run.computeScale;
  if (run.precision) json["precision"] = *run.precision;
  return json;
}

RunDescription runDescriptionFromJson(const JsonReader& reader, const nlohmann::json& json) {
  reader.object(json);
  reader.allowOnly(json, {"tool", "version", "commit", "transport", "compute_scale", "precision"});
  RunDescription run;
  run.tool = reader.stringAt(json, "tool");
  run.version = reader.stringAt(json, "version");
  run.commit = reader.stringAt(json, "commit");
  run.transport = reader.stringAt(json, "transport");
  if (reader.has(json, "compute_scale")) run.computeScale = reader.numberAt(json, "compute_scale", 1e-6, 1000);
  if (reader.has(json, "precision")) run.precision = reader.stringAt(json, "precision");
  return run;
}

nlohmann::json algorithmParametersToJson(const AlgorithmOptions& options) {
  nlohmann::json json = nlohmann::json::object();
  if (options.dims) json["dims"] = *options.dims;
  if (options.ranksPerNode) json["ranks_per_node"] = *options.ranksPerNode;
  if (options.inner) json["inner"] = *options.inner;
  if (options.chunkBytes) json["chunk_bytes"] = *options.chunkBytes;
  return json;
}

AlgorithmOptions algorithmParametersFromJson(const JsonReader& reader, const nlohmann::json& json) {
  reader.object(json);
  reader.allowOnly(json, {"dims", "ranks_per_node", "inner", "chunk_bytes"});
  AlgorithmOptions options;
  if (reader.has(json, "dims")) {
    const JsonReader dims = reader.at("dims");
    options.dims.emplace();
    const auto& list = dims.array(json["dims"]);
    for (std::size_t i = 0; i < list.size(); ++i) options.dims->push_back(static_cast<int>(dims.at(i).integer(list[i], 1, kMaxRanks)));
  }
  if (reader.has(json, "ranks_per_node"))
    options.ranksPerNode = static_cast<int>(reader.integerAt(json, "ranks_per_node", 1, kMaxRanks));
  if (reader.has(json, "inner")) options.inner = reader.stringAt(json, "inner");
  if (reader.has(json, "chunk_bytes")) options.chunkBytes = reader.integerAt(json, "chunk_bytes", 1, kMaxBufferBytes);
  return options;
}

}  // namespace ddl
