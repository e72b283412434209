#include "algorithms/io/collective_sweep_json.hpp"

#include <nlohmann/json.hpp>

#include "algorithms/io/run_description_json.hpp"
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
                             {"hosts", sweep.hosts},
                             {"ranks_per_host", sweep.ranksPerHost},
                             {"type", sweep.type},
                             {"rows", rows}};
  requireFiniteNumbers(document, "the collective sweep");
  return document;
}

}  // namespace ddl
