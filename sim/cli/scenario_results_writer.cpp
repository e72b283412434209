#include "sim/cli/scenario_results_writer.hpp"

#include <cstdio>
#include <iomanip>
#include <ostream>

#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"
#include "common/number_text.hpp"
#include "common/output_file.hpp"

namespace ddl {
namespace {

// How the buckets were formed: "ddp: the first at 1.0 MiB, then 26.2 MB".
std::string fusionLine(const GradientFusion& fusion) {
  const std::string cap = formatBytes(static_cast<double>(fusion.bucketBytes));
  switch (fusion.policy) {
    case FusionPolicy::Size: return "each closing at " + cap;
    case FusionPolicy::Ddp: return "ddp: the first at " + formatBytes(static_cast<double>(fusion.firstBucketBytes)) + ", then " + cap;
    case FusionPolicy::Horovod: return "horovod: what each " + formatSeconds(fusion.cycleSeconds) + " cycle holds, up to " + cap;
    case FusionPolicy::PerLayer: return "per-layer: one per layer";
  }
  return fusionPolicyName(fusion.policy);
}

// "compute_jitter 0.002 (sourced), overlap_slowdown 0.189 (sourced); seed 1": what the table's points include.
std::string effectsLine(const Scenario& scenario) {
  std::string line;
  for (const EffectDeclaration& declaration : effectTable()) {
    const double value = scenario.effects.*declaration.field;
    const bool sourced = scenario.sourced(declaration);
    if (value <= 0 && !sourced) continue;
    line += (line.empty() ? "" : ", ") + std::string(declaration.key) + " " + shortNumber(value) + (sourced ? " (sourced)" : "");
  }
  if (!scenario.effects.gpuTimeFactorsFile.empty())
    line += (line.empty() ? "" : ", ") + std::string("GPU time factors from ") + scenario.effects.gpuTimeFactorsFile;
  if (line.empty()) return "none (the ideal iteration: compute and communication alone)";
  return line + "; seed " + std::to_string(scenario.effects.seed);
}

void writeTable(std::ostream& out, const Scenario& scenario, const IterationPlan& plan, const ScalingResults& results) {
  out << "scenario  " << scenario.name << ": " << scenario.model.name() << " on " << scenario.gpu << ", batch "
      << scenario.batchPerGpu << " per GPU, " << scenario.topology.name << ", " << plan.buckets().size() << " buckets ("
      << fusionLine(scenario.fusion) << ")" << (scenario.overlapBackward ? ", overlapping backward" : ", after backward")
      << "\n";
  out << "effects   " << effectsLine(scenario) << "\n";
  out << "compute   " << formatSeconds(plan.workload().computeSeconds()) << " per iteration on one GPU\n";
  out << "baseline  efficiency against "
      << (scenario.baselineGpus == 1 ? std::string("one GPU alone")
                                     : "each algorithm's iteration at " + std::to_string(scenario.baselineGpus) + " GPUs")
      << "\n\n";
  out << "exposed   the iteration past the compute (communication, and stragglers where effects are on): of\n"
         "          it, latency is what zeroing every link's latency removes, bandwidth the rest\n";
  const bool ranged = !results.points.empty() && results.points.front().efficiencyRange;
  if (ranged)
    out << "range     efficiency with every sourced effect at the pessimistic and at the optimistic end of its range\n";
  out << "\n";
  char line[320];
  std::snprintf(line, sizeof line, "%6s  %-36s %12s %12s %11s %14s %12s %12s%s\n", "gpus", "algorithm", "iteration",
                "images/s", "efficiency", "exposed comm", "latency", "bandwidth", ranged ? "          range" : "");
  out << line;
  for (const ScalingPoint& point : results.points) {
    char range[48] = "";
    if (point.efficiencyRange)
      std::snprintf(range, sizeof range, "  %5.1f%% - %5.1f%%", 100 * point.efficiencyRange->first, 100 * point.efficiencyRange->second);
    std::snprintf(line, sizeof line, "%6d  %-36s %12s %12.1f %10.1f%% %14s %12s %12s%s\n", point.gpus, point.label.c_str(),
                  formatSeconds(point.iterationSeconds).c_str(), point.imagesPerSecond(), 100 * point.efficiency(),
                  formatSeconds(point.exposedCommunicationSeconds()).c_str(),
                  formatSeconds(point.exposedLatencySeconds.value_or(0)).c_str(),
                  formatSeconds(point.exposedBandwidthSeconds()).c_str(), range);
    out << line;
  }
}

void writeCsv(std::ostream& out, const ScalingResults& results) {
  out << "gpus,algorithm,iteration_s,images_per_s,efficiency,exposed_comm_s,compute_s,exposed_latency_s,exposed_bandwidth_s,"
         "efficiency_low,efficiency_high\n"
      << std::setprecision(9);
  for (const ScalingPoint& point : results.points) {
    out << point.gpus << ",\"" << point.label << "\"," << point.iterationSeconds << "," << point.imagesPerSecond()
        << "," << point.efficiency() << "," << point.exposedCommunicationSeconds() << "," << point.computeSeconds << ","
        << point.exposedLatencySeconds.value_or(0) << "," << point.exposedBandwidthSeconds() << ",";
    // Empty without --range.
    if (point.efficiencyRange) out << point.efficiencyRange->first << "," << point.efficiencyRange->second;
    else out << ",";
    out << "\n";
  }
}

}  // namespace

void writeScenarioResults(const std::string& path, ResultsFormat format, const Scenario& scenario, const IterationPlan& plan,
                          const ScalingResults& results, const nlohmann::json& document) {
  writeOutput(path, [&](std::ostream& out) {
    switch (format) {
      case ResultsFormat::Json: out << document.dump(1) << "\n"; break;
      case ResultsFormat::Csv: writeCsv(out, results); break;
      case ResultsFormat::Table: writeTable(out, scenario, plan, results); break;
    }
  });
}

void writeShareValues(const std::string& path, const ScenarioSweep& sweep, const std::vector<std::size_t>& mine,
                      const std::vector<std::vector<double>>& values) {
  nlohmann::json json{{"sweep", sweep.signature()}, {"simulations", sweep.simulations()}, {"values", nlohmann::json::array()}};
  for (const std::size_t simulation : mine) json["values"].push_back({simulation, values[simulation]});
  writeOutput(path, [&](std::ostream& out) { out << json.dump() << "\n"; });
}

std::vector<std::vector<double>> readShareValues(const std::vector<std::string>& paths, const ScenarioSweep& sweep) {
  const std::size_t simulations = sweep.simulations();
  std::vector<std::vector<double>> values(simulations);
  std::vector<bool> seen(simulations, false);
  for (const std::string& path : paths) {
    const nlohmann::json json = readJsonFile(path);
    try {
      if (json.at("sweep").get<std::string>() != sweep.signature() || json.at("simulations").get<std::size_t>() != simulations)
        throw InvalidArgument("--sweep-values", path + " is a share of another sweep: another scenario, engine, --gpus, "
                                                "--compute-scale or --range");
      for (const nlohmann::json& entry : json.at("values")) {
        const auto simulation = entry.at(0).get<std::size_t>();
        if (simulation >= simulations || seen[simulation])
          throw InvalidArgument("--sweep-values", path + ": simulation " + std::to_string(simulation) + " is out of place");
        seen[simulation] = true;
        values[simulation] = entry.at(1).get<std::vector<double>>();
      }
    } catch (const nlohmann::json::exception& error) {
      throw InvalidArgument("--sweep-values", path + ": " + error.what());
    }
  }
  for (std::size_t simulation = 0; simulation < simulations; ++simulation)
    if (!seen[simulation]) throw InvalidArgument("--sweep-values", "no share holds simulation " + std::to_string(simulation));
  return values;
}

}  // namespace ddl
