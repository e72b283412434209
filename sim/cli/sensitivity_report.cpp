#include "sim/cli/sensitivity_report.hpp"

#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "common/output_file.hpp"

namespace ddl {

void writeSensitivityTable(const std::string& path, const Sensitivity& sensitivity) {
  writeOutput(path, [&](std::ostream& out) {
    const int gpus = sensitivity.points.empty() ? 0 : sensitivity.points.front().gpus;
    out << "sensitivity  " << sensitivity.scenario << " at " << gpus << " GPUs: each uncertain input varied alone over its\n"
        << "             prior (" << sensitivity.samples << " samples), every other at its central value: the efficiency's\n"
        << "             5th to 95th percentile, the widest swing first, then all of them together (--samples)\n";
    char line[256];
    for (const PointSensitivity& point : sensitivity.points) {
      std::snprintf(line, sizeof line, "\n%s: %.1f%% at every input's central value\n", point.label.c_str(),
                    100 * point.centralEfficiency);
      out << line;
      std::snprintf(line, sizeof line, "  %-30s %8s %8s %8s %14s\n", "input", "5th", "median", "95th", "swing");
      out << line;
      for (const InputSwing& swing : point.swings) {
        std::snprintf(line, sizeof line, "  %-30s %7.1f%% %7.1f%% %7.1f%% %7.2f points\n", swing.input.c_str(),
                      100 * swing.efficiency.p05, 100 * swing.efficiency.p50, 100 * swing.efficiency.p95,
                      100 * (swing.efficiency.p95 - swing.efficiency.p05));
        out << line;
      }
    }
  });
}

nlohmann::json sensitivityToJson(const Sensitivity& sensitivity) {
  nlohmann::json points = nlohmann::json::array();
  for (const PointSensitivity& point : sensitivity.points) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const InputSwing& swing : point.swings)
      inputs.push_back({{"input", swing.input},
                        {"efficiency_p05", swing.efficiency.p05},
                        {"efficiency_p50", swing.efficiency.p50},
                        {"efficiency_p95", swing.efficiency.p95}});
    points.push_back({{"label", point.label}, {"gpus", point.gpus}, {"efficiency", point.centralEfficiency}, {"inputs", inputs}});
  }
  return {{"scenario", sensitivity.scenario}, {"samples", sensitivity.samples}, {"points", points}};
}

}  // namespace ddl
