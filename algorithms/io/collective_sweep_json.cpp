#include "algorithms/io/collective_sweep_json.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "algorithms/io/nccl_tests_table.hpp"
#include "algorithms/io/run_description_json.hpp"
#include "algorithms/schedule/collective.hpp"
#include "algorithms/schedule/element_type.hpp"
#include "algorithms/tuning/nccl_protocol.hpp"
#include "common/json_reader.hpp"

namespace ddl {
namespace {

void addTime(nlohmann::json& into, const CollectiveTime& time, double bytes, double busFactor) {
  const double algbw = time.seconds > 0 ? bytes / time.seconds : 0;
  into["time_s"] = time.seconds;
  into["algbw_Bps"] = algbw;
  into["busbw_Bps"] = algbw * busFactor;
  if (time.wrong) into["wrong"] = *time.wrong;
}

}  // namespace

nlohmann::json collectiveSweepToJson(const CollectiveSweep& sweep) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CollectiveSweepRow& row : sweep.rows) {
    nlohmann::json entry = {{"bytes", row.bytes}, {"count", row.count}};
    addTime(entry, row.result, static_cast<double>(row.bytes), sweep.busFactor);
    if (row.outOfPlace) {
      nlohmann::json outOfPlace = nlohmann::json::object();
      addTime(outOfPlace, *row.outOfPlace, static_cast<double>(row.bytes), sweep.busFactor);
      entry["out_of_place"] = outOfPlace;
    }
    if (!row.chosen.empty()) entry["chosen"] = row.chosen;
    if (row.baseline) {
      nlohmann::json baseline = {{"library", row.baselineLibrary}};
      addTime(baseline, *row.baseline, static_cast<double>(row.bytes), sweep.busFactor);
      entry["baseline"] = baseline;
    }
    rows.push_back(entry);
  }
  nlohmann::json document = {{"source", sweep.source},
                             {"run", runDescriptionToJson(sweep.run)},
                             {"configuration", sweep.configuration},
                             {"collective", sweep.collective},
                             {"algorithm", sweep.algorithmName},
                             {"parameters", algorithmParametersToJson(sweep.parameters)},
                             {"label", sweep.label},
                             {"ranks", sweep.ranks},
                             {"type", sweep.type},
                             {"rows", rows}};
  // Unknown (0) in files written before they were recorded, which the reader takes without them.
  if (sweep.hosts > 0) document["hosts"] = sweep.hosts;
  if (sweep.ranksPerHost > 0) document["ranks_per_host"] = sweep.ranksPerHost;
  if (!sweep.timeOverRanks.empty()) document["time_over_ranks"] = sweep.timeOverRanks;
  if (!sweep.protocol.empty()) document["protocol"] = sweep.protocol;
  requireFiniteNumbers(document, "the collective sweep");
  return document;
}

std::string elementTypeName(int elementBytes) {
  // ddlsim knows only the size, and float32 is the size's usual type.
  return elementBytes == infoOf(ElementType::Float32).bytes ? std::string(infoOf(ElementType::Float32).name)
                                                           : std::to_string(elementBytes) + "-byte";
}

int sweepElementBytes(const std::string& type) {
  for (const ElementTypeInfo& info : kElementTypes)
    if (info.name == type) return info.bytes;
  // ddlsim collective knows only the size: "2-byte".
  const std::string suffix = "-byte";
  if (type.size() > suffix.size() && type.compare(type.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const std::string digits = type.substr(0, type.size() - suffix.size());
    if (digits.size() <= 2 && digits.find_first_not_of("0123456789") == std::string::npos) return std::stoi(digits);
  }
  return 0;
}

CollectiveSweep collectiveSweepFromJson(const nlohmann::json& json, const std::string& source) {
  const JsonReader root(source);
  root.object(json);
  root.allowOnly(json, {"source", "run", "configuration", "collective", "algorithm", "parameters", "label", "ranks", "hosts",
                        "ranks_per_host", "type", "time_over_ranks", "protocol", "rows"});
  CollectiveSweep sweep;
  sweep.source = root.stringAt(json, "source");
  if (root.has(json, "run")) sweep.run = runDescriptionFromJson(root.at("run"), json["run"]);
  if (root.has(json, "configuration")) sweep.configuration = root.stringAt(json, "configuration");
  sweep.collective = root.stringAt(json, "collective");
  if (!parseCollectiveKind(sweep.collective)) root.at("collective").fail("'" + sweep.collective + "' is no collective");
  sweep.algorithmName = root.stringAt(json, "algorithm");
  if (root.has(json, "parameters")) sweep.parameters = algorithmParametersFromJson(root.at("parameters"), json["parameters"]);
  sweep.label = root.has(json, "label") ? root.stringAt(json, "label") : sweep.algorithmName;
  sweep.ranks = static_cast<int>(root.integerAt(json, "ranks", 1, 1 << 24));
  if (root.has(json, "hosts")) sweep.hosts = static_cast<int>(root.integerAt(json, "hosts", 1, sweep.ranks));
  if (root.has(json, "ranks_per_host"))
    sweep.ranksPerHost = static_cast<int>(root.integerAt(json, "ranks_per_host", 1, sweep.ranks));
  sweep.type = root.stringAt(json, "type");
  if (root.has(json, "time_over_ranks")) {
    sweep.timeOverRanks = root.stringAt(json, "time_over_ranks");
    if (!rankAverageNamed(sweep.timeOverRanks))
      root.at("time_over_ranks").fail("'" + sweep.timeOverRanks + "' is not rank0, mean, min or max");
  }
  if (root.has(json, "protocol")) {
    sweep.protocol = root.stringAt(json, "protocol");
    const auto& named = allProtocols();
    if (std::none_of(named.begin(), named.end(), [&](Protocol p) { return sweep.protocol == toString(p); }))
      root.at("protocol").fail("'" + sweep.protocol + "' is not simple, ll or ll128");
  }
  if (sweepElementBytes(sweep.type) == 0) root.at("type").fail("'" + sweep.type + "' names no element type");
  const JsonReader rowsAt = root.at("rows");
  const auto& rows = rowsAt.array(root.member(json, "rows"));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JsonReader r = rowsAt.at(i);
    r.object(rows[i]);
    r.allowOnly(rows[i], {"bytes", "count", "time_s", "algbw_Bps", "busbw_Bps", "wrong", "out_of_place", "baseline", "chosen"});
    CollectiveSweepRow row;
    row.bytes = r.integerAt(rows[i], "bytes", 0, std::int64_t{1} << 50);
    row.count = r.integerAt(rows[i], "count", 0, std::int64_t{1} << 50);
    if (row.count * sweepElementBytes(sweep.type) != row.bytes)
      r.at("count").fail(std::to_string(row.count) + " elements of " + sweep.type + " are not " + std::to_string(row.bytes) + " bytes");
    row.result.seconds = r.numberAt(rows[i], "time_s", 0, 1e9);
    if (r.has(rows[i], "wrong")) row.result.wrong = r.integerAt(rows[i], "wrong", 0, std::int64_t{1} << 50);
    if (r.has(rows[i], "chosen")) row.chosen = r.stringAt(rows[i], "chosen");
    sweep.rows.push_back(row);
  }
  return sweep;
}

}  // namespace ddl
