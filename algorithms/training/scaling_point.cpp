#include "algorithms/training/scaling_point.hpp"

#include <algorithm>

#include "common/build_info.hpp"
#include "common/statistics.hpp"

namespace ddl {

Percentiles percentilesOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return {quantileOfSorted(values, 0.05), quantileOfSorted(values, 0.50), quantileOfSorted(values, 0.95)};
}

RunDescription describeRun(const std::string& tool, const std::string& transport) {
  RunDescription run;
  run.tool = tool;
  run.version = ddlscaleVersion();
  run.commit = ddlscaleCommit();
  run.transport = transport;
  return run;
}

}  // namespace ddl
