// `ddlsim calibrate network TOPOLOGY BENCH.json... --level network|node [--out FILE] [--jobs N]`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/cli_checks.hpp"
#include "common/data_files.hpp"
#include "common/invalid_argument.hpp"
#include "common/json_reader.hpp"
#include "common/output_file.hpp"
#include "common/statistics.hpp"
#include "scenarios/scenario.hpp"
#include "sim/calibration/network_calibration.hpp"
#include "sim/cli/calibration_commands.hpp"

namespace ddl {
namespace {

struct NetworkCalibrationArguments {
  std::string topology;
  std::vector<std::string> measured;
  std::string level;
  std::string out;
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
};

// The topology file with the fitted level written in, and where the numbers came from in its sources.
nlohmann::json calibratedFile(nlohmann::json file, LinkLevel level, const NetworkCalibration& fit, const std::string& source) {
  if (level == LinkLevel::Network) {
    file["network"]["nic_latency_s"] = fit.latencySeconds;
    file["network"]["nic_bandwidth_Bps"] = fit.bandwidthBps;
  } else {
    for (nlohmann::json& link : file["node"]["links"])
      for (const nlohmann::json& end : link["between"])
        if (end.get<std::string>().rfind("gpu", 0) == 0) {
          link["latency_s"] = fit.latencySeconds;
          link["bandwidth_Bps"] = fit.bandwidthBps;
        }
  }
  if (!file.contains("sources") || !file["sources"].is_object()) file["sources"] = nlohmann::json::object();
  file["sources"][level == LinkLevel::Network ? "calibrated network" : "calibrated node links"] = source;
  return file;
}

int runNetworkCalibration(const NetworkCalibrationArguments& args) {
  const LinkLevel level = args.level == "network" ? LinkLevel::Network : LinkLevel::Node;
  const std::string path = findDataFile("topologies", args.topology, "./", "topology");
  const Topology topology = loadTopology(path);
  std::vector<MeasuredSweep> sweeps;
  for (const std::string& file : args.measured) sweeps.push_back({file, collectiveSweepFromJson(readJsonFile(file), file)});
  requireDistinctOutputs({{"--out", args.out}});  // not onto the topology or a sweep: before any fitting is printed
  const NetworkCalibration fit = calibrateLevel(topology, level, sweeps, args.jobs);
  std::vector<double> errors;
  for (const CalibratedRow& row : fit.rows) errors.push_back(std::abs(row.relativeError()));
  const double medianError = median(errors);
  const std::string files = measuredFilesListed(args.measured);
  char text[256];
  std::snprintf(text, sizeof text, "latency %.6g s, bandwidth %.6g B/s: ddlsim calibrate network --level %s, median |error| %.2f%%, from ",
                fit.latencySeconds, fit.bandwidthBps, args.level.c_str(), 100 * medianError);
  // A file based on another is written whole, with its base resolved: --out may be in another folder.
  const nlohmann::json file = calibratedFile(topologyDocument(path), level, fit, text + files + " (measured)");
  // What would be written loads, before anything is printed: a fit outside a topology's ranges is bad
  // input, with no partial output.
  topologyFromJson(file, args.out.empty() ? path : args.out);

  std::printf("%s level of %s fitted from %zu sweep(s): latency %.4g s, bandwidth %.4g B/s\n", args.level.c_str(),
              topology.name.c_str(), sweeps.size(), fit.latencySeconds, fit.bandwidthBps);
  std::printf("%-48s %12s %14s %14s %8s\n", "sweep", "bytes", "measured s", "fitted s", "error");
  for (const CalibratedRow& row : fit.rows)
    std::printf("%-48s %12lld %14.6g %14.6g %7.2f%%\n", row.sweep.c_str(), static_cast<long long>(row.bytes), row.measuredSeconds,
                row.fittedSeconds, 100 * row.relativeError());
  std::printf("residuals: median |error| %.2f%%, max %.2f%% over %zu rows\n", 100 * medianError, 100 * *std::max_element(errors.begin(), errors.end()), errors.size());
  if (!args.out.empty()) {
    writeOutput(args.out, [&](std::ostream& out) { out << file.dump(1) << "\n"; });
    std::printf("wrote %s\n", args.out.c_str());
  }
  return 0;
}

}  // namespace

void addNetworkCalibration(CLI::App& calibrate, int& exitCode) {
  auto args = std::make_shared<NetworkCalibrationArguments>();
  CLI::App* command =
      calibrate.add_subcommand("network", "Fit the latency and bandwidth of a topology's link level from ddlrun bench sweeps.");
  command->add_option("topology", args->topology, "The topology: a name under topologies/ or a file")->required();
  command->add_option("measured", args->measured, "ddlrun bench --json sweeps (one or more)")->required()->check(readableFile());
  command->add_option("--level", args->level,
                      "network: the NICs; node: every node link with a GPU at one end, set alike")
      ->required()
      ->check(CLI::IsMember({"network", "node"}));
  command->add_option("--out", args->out, "Write the calibrated topology here (default: only print the fit)")->check(writableFile());
  command->add_option("--jobs", args->jobs, "Simulations at once (default: the cores)")->check(CLI::Range(1, 1024));
  command->callback([args, &exitCode] { exitCode = runNetworkCalibration(*args); });
}

}  // namespace ddl
