// `ddlsim calibrate effects` and `ddlsim calibrate network` as a user meets them: a fit printed with its
// residuals, a calibrated file that loads, and data that cannot identify a parameter refused (exit 2,
// naming it) with nothing written.

#include <nlohmann/json.hpp>

#include "algorithms/io/results_json.hpp"
#include "tests/sim/ddlsim_runner.hpp"

namespace ddl::testing {
namespace {

class DdlsimCalibrate : public DdlsimRun {
 protected:
  fs::path write(const std::string& name, const nlohmann::json& json) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << json.dump(1);
    return path;
  }
  // The PowerAI DDL scenario cut to two GPU counts.
  fs::path scenario() {
    nlohmann::json json = nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json"));
    json["gpus"] = {1, 8};
    json["algorithms"] = {{{"name", "ring"}}};
    return write("scenario.json", json);
  }
  // ddlrun train's results of one two-rank point, compute as given, slowed by s = 0.25.
  fs::path measured(const std::string& compute) {
    MeasuredEffects effects;
    effects.compute = compute;
    effects.iterations = 4;
    effects.computeAloneSeconds = {0.1, 0.102};
    effects.computeAloneDeviationSeconds = {0.001, 0.0015};
    effects.overlapSeconds = {0.05, 0.04};
    const double stretch = compute == "sleep" ? 0 : 0.25 / 1.25;
    effects.computeOverlappedSeconds = {0.1 + 0.05 * stretch, 0.102 + 0.04 * stretch};
    effects.allreduceOverheadSeconds = {2e-5, 3e-5};
    ScalingPoint point;
    point.configuration = "c";
    point.gpus = 2;
    point.algorithmName = point.label = "ring";
    point.batchPerGpu = 32;
    point.iterationSeconds = 0.2;
    point.computeSeconds = 0.15;
    point.measuredEffects = effects;
    ScalingResults results;
    results.source = "ddlrun";
    results.scenario = "c";
    results.points = {point};
    return write("measured-" + compute.substr(0, compute.find(' ')) + ".json", resultsToJson(results));
  }
  // An emulated cluster's topology of one-rank nodes.
  fs::path topology(const std::string& name, double latency, double bandwidth) {
    const nlohmann::json file = {
        {"name", "emulated"},
        {"node", {{"gpu", "cpu-rank"}, {"gpus", 1}, {"devices", {"shm", "nic0"}},
                  {"links", {{{"name", "shm-gpu0"}, {"between", {"gpu0", "shm"}}, {"bandwidth_Bps", 3e9}, {"latency_s", 2e-6}},
                             {{"name", "shm-nic0"}, {"between", {"shm", "nic0"}}, {"bandwidth_Bps", 1e11}, {"latency_s", 0}}}},
                  {"nics", {"nic0"}}, {"port", {{"bandwidth_Bps", 1e11}, {"latency_s", 0}}}, {"reduce_Bps", 4e9}}},
        {"nics_used", 1},
        {"network", {{"nic_bandwidth_Bps", bandwidth}, {"nic_latency_s", latency}, {"nodes_per_leaf", 8},
                     {"oversubscription", 1}, {"core_latency_s", 0}}},
        {"sources", {{"nic", "a test's"}}}};
    return write(name, file);
  }
};

TEST_F(DdlsimCalibrate, EffectsAreFittedIntoAScenarioThatLoads) {
  const fs::path out = dir_ / "calibrated.json";
  const Result result = ddlsim("calibrate effects " + scenario().string() + " " + measured("busy host cores").string() + " --out " + out.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  for (const char* key : {"compute_jitter", "gpu_speed_spread", "overlap_slowdown", "allreduce_overhead_s", "residual"})
    EXPECT_NE(result.out.find(key), std::string::npos) << key << " in " << result.out;
  const nlohmann::json calibrated = nlohmann::json::parse(slurp(out));
  EXPECT_NEAR(calibrated["effects"]["overlap_slowdown"].get<double>(), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(calibrated["effects"]["allreduce_overhead_s"].get<double>(), 2.5e-5);
  EXPECT_NE(calibrated["effects"]["source"].get<std::string>().find("ddlsim calibrate effects"), std::string::npos);
  // The calibrated scenario simulates.
  const Result simulated = ddlsim(out.string() + " --json");
  EXPECT_EQ(simulated.exitCode, 0) << simulated.err;
}

TEST_F(DdlsimCalibrate, AnEffectTheMeasurementsCannotIdentifyIsRefusedAndNothingWritten) {
  const fs::path out = dir_ / "calibrated.json";
  const std::string asleep = scenario().string() + " " + measured("sleep").string() + " --out " + out.string();
  const Result refused = ddlsim("calibrate effects " + asleep);
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("compute_jitter"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--only"), std::string::npos) << refused.err;
  EXPECT_TRUE(refused.out.empty()) << refused.out;
  EXPECT_FALSE(fs::exists(out));
  // Left out, the others are fitted.
  const Result fitted = ddlsim("calibrate effects " + asleep + " --only allreduce_overhead_s");
  ASSERT_EQ(fitted.exitCode, 0) << fitted.err;
  const nlohmann::json effects = nlohmann::json::parse(slurp(out))["effects"];
  for (const char* key : {"compute_jitter", "overlap_slowdown"}) EXPECT_EQ(effects[key], "sourced") << key << ": kept as the scenario had it";
  EXPECT_DOUBLE_EQ(effects["allreduce_overhead_s"].get<double>(), 2.5e-5);
}

TEST_F(DdlsimCalibrate, ResultsWithoutMeasuredEffectsAndUnknownEffectsAreBadInput) {
  nlohmann::json predicted = nlohmann::json::parse(slurp(measured("busy host cores")));
  predicted["points"][0].erase("measured_effects");
  const fs::path file = write("predicted.json", predicted);
  const Result none = ddlsim("calibrate effects " + scenario().string() + " " + file.string());
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_NE(none.err.find(file.string() + ": $.points"), std::string::npos) << none.err;
  const Result unknown = ddlsim("calibrate effects " + scenario().string() + " " + measured("busy host cores").string() + " --only jitter");
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_NE(unknown.err.find("--only"), std::string::npos) << unknown.err;
}

TEST_F(DdlsimCalibrate, TheNetworkComesBackFromDdlsimsOwnSweeps) {
  // Sweeps predicted at 250 us and 12.4 MB/s, fitted from a topology at 1 ms and 3 MB/s.
  const fs::path truth = topology("truth.json", 2.5e-4, 1.24e7);
  const fs::path sweep = dir_ / "sweep.json";
  ASSERT_EQ(ddlsim("collective --topology " + truth.string() + " --gpus 4 --algorithm ring -b 4K -e 4M -f 8 --json --out " + sweep.string()).exitCode, 0);
  const fs::path out = dir_ / "fitted.json";
  const Result result =
      ddlsim("calibrate network " + topology("wrong.json", 1e-3, 3e6).string() + " " + sweep.string() + " --level network --out " + out.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("median |error| 0.00%"), std::string::npos) << result.out;
  const nlohmann::json fitted = nlohmann::json::parse(slurp(out));
  EXPECT_NEAR(fitted["network"]["nic_latency_s"].get<double>(), 2.5e-4, 1e-9);
  EXPECT_NEAR(fitted["network"]["nic_bandwidth_Bps"].get<double>(), 1.24e7, 1.0);
  EXPECT_NE(fitted["sources"]["calibrated network"].get<std::string>().find(sweep.string()), std::string::npos);
  // A sweep that says it ran four ranks on one host, which the topology's one-GPU nodes cannot hold.
  const fs::path one = dir_ / "one-host.json";
  nlohmann::json oneHost = nlohmann::json::parse(slurp(sweep));
  oneHost["hosts"] = 1;
  oneHost["ranks_per_host"] = 4;
  std::ofstream(one) << oneHost.dump();
  const fs::path never = dir_ / "never.json";
  const Result refused = ddlsim("calibrate network " + truth.string() + " " + one.string() + " --level network --out " + never.string());
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("ranks_per_host"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(never));
}

}  // namespace
}  // namespace ddl::testing
