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
  if (!scenario.effects.jobTimeFactorsFile.empty())
    line += (line.empty() ? "" : ", ") + std::string("the samples' job time factors from ") + scenario.effects.jobTimeFactorsFile;
  if (line.empty()) return "none (the ideal iteration: compute and communication alone)";
  return line + "; seed " + std::to_string(scenario.effects.seed);
}

void writeTable(std::ostream& out, const Scenario& scenario, const IterationPlan& plan, const ScalingResults& results) {
  // A model of sequences counts its batch, and its rate, in sequences (the results files keep the name
  // images_per_s for either: samples per second).
  const bool sequences = scenario.model.sequenceLength() > 0;
  const char* const rate = sequences ? "sequences/s" : "images/s";
  out << "scenario  " << scenario.name << ": " << scenario.model.name() << " on " << scenario.gpu << ", batch "
      << scenario.batchPerGpu << (sequences ? " sequences of " + std::to_string(scenario.model.sequenceLength()) + " tokens" : std::string())
      << " per GPU, " << scenario.topology.name << ", " << plan.buckets().size() << " buckets ("
      << fusionLine(scenario.fusion) << ")" << (scenario.overlapBackward ? ", overlapping backward" : ", after backward")
      << "\n";
  if (isSharded(scenario.parallelism))
    out << "sharding  " << parallelismName(scenario.parallelism)
        << (shardsParameters(scenario.parallelism)
                ? ": each bucket a unit, all-gathered before its forward and its backward, reduce-scattered after"
                : ": each bucket reduce-scattered, the optimizer on a 1/N shard, then each bucket all-gathered")
        << "; exposed is against this plan's own compute\n";
  out << "effects   " << effectsLine(scenario) << "\n";
  out << "compute   " << formatSeconds(plan.workload().computeSeconds()) << " per iteration on one GPU\n";
  out << "baseline  efficiency against "
      << (scenario.baselineGpus == 1 ? std::string("one GPU alone")
                                     : "each algorithm's iteration at " + std::to_string(scenario.baselineGpus) + " GPUs")
      << "\n\n";
  out << "exposed   the iteration past the compute (communication, and stragglers where effects are on): of\n"
         "          it, latency is what zeroing every link's latency removes, bandwidth the rest\n";
  const bool sampled = !results.points.empty() && results.points.front().interval;
  if (sampled)
    out << "samples   " << results.points.front().interval->samples
        << " Monte Carlo samples over the priors of the sourced effects (ddlsim effects) and the seeds of the\n"
           "          per-rank draws: iteration, " << rate << " and efficiency are the samples' medians, and 90% the 5th to\n"
           "          95th percentile of the efficiency, each sample against its baseline under the same draw; exposed\n"
           "          and its split are at every input's central value. What no prior covers (the topology, the\n"
           "          model's profile, the engine) is not in the interval.\n";
  out << "\n";
  char line[320];
  std::snprintf(line, sizeof line, "%6s  %-36s %12s %12s %*s %14s %12s %12s\n", "gpus", "algorithm", "iteration", rate,
                sampled ? 26 : 11, sampled ? "efficiency (90% interval)" : "efficiency", "exposed comm", "latency", "bandwidth");
  out << line;
  for (const ScalingPoint& point : results.points) {
    const PredictiveInterval* interval = point.interval ? &*point.interval : nullptr;
    char efficiency[64];
    if (interval) {
      // 95.1% (90%: 91.0-96.8)
      std::snprintf(efficiency, sizeof efficiency, "%5.1f%% (90%%: %.1f-%.1f)", 100 * interval->efficiency.p50,
                    100 * interval->efficiency.p05, 100 * interval->efficiency.p95);
    } else {
      std::snprintf(efficiency, sizeof efficiency, "%.1f%%", 100 * point.efficiency());
    }
    std::snprintf(line, sizeof line, "%6d  %-36s %12s %12.1f %*s %14s %12s %12s\n", point.gpus, point.label.c_str(),
                  formatSeconds(interval ? interval->iterationSeconds.p50 : point.iterationSeconds).c_str(),
                  interval ? interval->imagesPerSecond.p50 : point.imagesPerSecond(), sampled ? 26 : 11, efficiency,
                  formatSeconds(point.exposedCommunicationSeconds()).c_str(),
                  formatSeconds(point.exposedLatencySeconds.value_or(0)).c_str(),
                  formatSeconds(point.exposedBandwidthSeconds()).c_str());
    out << line;
  }
}

void writeCsv(std::ostream& out, const ScalingResults& results) {
  out << "gpus,algorithm,iteration_s,images_per_s,efficiency,exposed_comm_s,compute_s,exposed_latency_s,exposed_bandwidth_s,"
         "samples,iteration_s_p05,iteration_s_p50,iteration_s_p95,images_per_s_p05,images_per_s_p50,images_per_s_p95,"
         "efficiency_p05,efficiency_p50,efficiency_p95\n"
      << std::setprecision(9);
  for (const ScalingPoint& point : results.points) {
    out << point.gpus << ",\"" << point.label << "\"," << point.iterationSeconds << "," << point.imagesPerSecond()
        << "," << point.efficiency() << "," << point.exposedCommunicationSeconds() << "," << point.computeSeconds << ","
        << point.exposedLatencySeconds.value_or(0) << "," << point.exposedBandwidthSeconds() << ",";
    // Empty without --samples.
    if (const auto& interval = point.interval) {
      out << interval->samples;
      for (const Percentiles& percentiles : {interval->iterationSeconds, interval->imagesPerSecond, interval->efficiency})
        out << "," << percentiles.p05 << "," << percentiles.p50 << "," << percentiles.p95;
    } else {
      out << ",,,,,,,,,";
    }
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
                                                "--compute-scale or --samples");
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
