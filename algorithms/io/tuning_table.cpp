#include "algorithms/io/tuning_table.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/collective_sweep_json.hpp"
#include "algorithms/io/run_description_json.hpp"
#include "common/json_reader.hpp"
#include "common/limits.hpp"

namespace ddl {
namespace {

// The candidate a row names, by label.
std::size_t candidateLabelled(const TuningTable& table, const JsonReader& reader, const std::string& label) {
  for (std::size_t i = 0; i < table.candidates.size(); ++i)
    if (table.candidates[i].choice.label() == label) return i;
  reader.fail("'" + label + "' is none of the candidates");
}

// A row's figure must be the candidate's own, as written (the writer writes both from one double).
void requireSameTime(const JsonReader& reader, double rowSeconds, double candidateSeconds) {
  if (rowSeconds != candidateSeconds)
    reader.fail(std::to_string(rowSeconds) + " s, but the candidate's time at this size is " + std::to_string(candidateSeconds) + " s");
}

}  // namespace

nlohmann::json tuningTableToJson(const TuningTable& table) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const TunedCandidate& candidate : table.candidates)
    candidates.push_back({{"algorithm", candidate.choice.algorithm->name},
                          {"parameters", algorithmParametersToJson(candidate.choice.options)},
                          {"label", candidate.choice.label()},
                          {"time_s", candidate.seconds}});
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t s = 0; s < table.sizes.size(); ++s) {
    const TunedCandidate& best = table.candidates[table.best(s)];
    const TunedCandidate& second = table.candidates[table.runnerUp(s)];
    rows.push_back({{"bytes", table.sizes[s]},
                    {"best", best.choice.label()},
                    {"time_s", best.seconds[s]},
                    {"runner_up", second.choice.label()},
                    {"runner_up_time_s", second.seconds[s]},
                    {"margin", table.margin(s)}});
  }
  nlohmann::json json = {{"source", table.source},
                         {"run", runDescriptionToJson(table.run)},
                         {"topology", table.topology},
                         {"gpus", table.gpus},
                         {"collective", toString(table.collective)},
                         {"type", elementTypeName(table.elementBytes)},
                         {"candidates", std::move(candidates)},
                         {"rows", std::move(rows)}};
  requireFiniteNumbers(json, "the tuning table");
  return json;
}

TuningTable tuningTableFromJson(const nlohmann::json& json, const std::string& source) {
  const JsonReader root(source);
  root.object(json);
  root.allowOnly(json, {"source", "run", "topology", "gpus", "collective", "type", "candidates", "rows"});
  TuningTable table;
  table.source = root.stringAt(json, "source");
  if (root.has(json, "run")) table.run = runDescriptionFromJson(root.at("run"), json["run"]);
  table.topology = root.stringAt(json, "topology");
  table.gpus = static_cast<int>(root.integerAt(json, "gpus", 1, kMaxRanks));
  const std::string collective = root.stringAt(json, "collective");
  const auto kind = parseCollectiveKind(collective);
  if (!kind) root.at("collective").fail("'" + collective + "' is no collective");
  table.collective = *kind;
  const std::string type = root.stringAt(json, "type");
  table.elementBytes = sweepElementBytes(type);
  if (table.elementBytes == 0) root.at("type").fail("'" + type + "' names no element type");

  const JsonReader rowsAt = root.at("rows");
  const auto& rows = rowsAt.array(root.member(json, "rows"));
  if (rows.empty()) rowsAt.fail("a table needs at least one size");
  for (std::size_t s = 0; s < rows.size(); ++s) {
    const JsonReader row = rowsAt.at(s);
    row.object(rows[s]);
    row.allowOnly(rows[s], {"bytes", "best", "time_s", "runner_up", "runner_up_time_s", "margin"});
    const std::int64_t bytes = row.integerAt(rows[s], "bytes", 0, kMaxBufferBytes);
    if (!table.sizes.empty() && bytes <= table.sizes.back())
      row.at("bytes").fail(std::to_string(bytes) + " does not follow " + std::to_string(table.sizes.back()) + ": sizes ascend");
    table.sizes.push_back(bytes);
  }

  const JsonReader candidatesAt = root.at("candidates");
  const auto& candidates = candidatesAt.array(root.member(json, "candidates"));
  if (candidates.empty()) candidatesAt.fail("a table needs at least one candidate");
  std::set<std::string> labels;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const JsonReader at = candidatesAt.at(c);
    at.object(candidates[c]);
    at.allowOnly(candidates[c], {"algorithm", "parameters", "label", "time_s"});
    TunedCandidate candidate;
    const std::string name = at.stringAt(candidates[c], "algorithm");
    try {
      // One that reduces in a switch (NVLS) too: a scenario's auto places it; the runtimes refuse a table that
      // chooses one (switchChoiceOf).
      candidate.choice.algorithm = &findAlgorithm(table.collective, name);
    } catch (const InvalidArgument& error) {
      at.at("algorithm").fail(error.message());
    }
    if (at.has(candidates[c], "parameters"))
      candidate.choice.options = algorithmParametersFromJson(at.at("parameters"), candidates[c]["parameters"]);
    try {
      checkOptions(*candidate.choice.algorithm, table.gpus, candidate.choice.options);
    } catch (const InvalidArgument& error) {
      at.at("parameters").fail(error.field() + ": " + error.message());
    }
    const std::string label = at.stringAt(candidates[c], "label");
    if (label != candidate.choice.label()) at.at("label").fail("'" + label + "', but its parameters make '" + candidate.choice.label() + "'");
    if (!labels.insert(label).second) at.at("label").fail("'" + label + "' is listed twice");
    const JsonReader timesAt = at.at("time_s");
    const auto& times = timesAt.array(at.member(candidates[c], "time_s"));
    if (times.size() != table.sizes.size())
      timesAt.fail(std::to_string(times.size()) + " times for " + std::to_string(table.sizes.size()) + " sizes");
    for (std::size_t s = 0; s < times.size(); ++s) candidate.seconds.push_back(timesAt.at(s).number(times[s], 0, 1e9));
    table.candidates.push_back(std::move(candidate));
  }

  for (std::size_t s = 0; s < rows.size(); ++s) {
    const JsonReader row = rowsAt.at(s);
    const std::size_t best = candidateLabelled(table, row.at("best"), row.stringAt(rows[s], "best"));
    if (table.candidates[best].seconds[s] != table.candidates[table.best(s)].seconds[s])
      row.at("best").fail("'" + table.candidates[best].choice.label() + "' is not the fastest at " + std::to_string(table.sizes[s]) +
                          " bytes: '" + table.candidates[table.best(s)].choice.label() + "' is");
    requireSameTime(row.at("time_s"), row.numberAt(rows[s], "time_s", 0, 1e9), table.candidates[best].seconds[s]);
    const std::size_t second = candidateLabelled(table, row.at("runner_up"), row.stringAt(rows[s], "runner_up"));
    requireSameTime(row.at("runner_up_time_s"), row.numberAt(rows[s], "runner_up_time_s", 0, 1e9), table.candidates[second].seconds[s]);
    row.numberAt(rows[s], "margin", 0, 1e9);
  }
  return table;
}

TuningTable loadTuningTable(const std::string& path) { return tuningTableFromJson(readJsonFile(path), path); }

}  // namespace ddl
