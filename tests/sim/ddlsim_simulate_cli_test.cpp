// `ddlsim SCENARIO`, `ddlsim collective` and `ddlsim platform` as a user meets them.

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/training/iteration_effects.hpp"
#include "tests/sim/ddlsim_runner.hpp"

namespace ddl::testing {
namespace {

class DdlsimSimulate : public DdlsimRun {
 protected:
  // A copy of the PowerAI DDL scenario cut to a few GPU counts, its effects off, with `edit` applied, in
  // this test's folder under `name`.
  fs::path scenario(const std::function<void(nlohmann::json&)>& edit = {}, const std::string& name = "scenario.json") {
    nlohmann::json json = nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json"));
    json["gpus"] = {1, 8, 16};
    json["algorithms"] = {{{"name", "ddl"}, {"dims", "topology"}}, {{"name", "ring"}}};
    json.erase("effects");
    if (edit) edit(json);
    const fs::path path = dir_ / name;
    std::ofstream(path) << json.dump(1);
    return path;
  }
};

TEST_F(DdlsimSimulate, WritesTheResultsSchema) {
  const Result result = ddlsim(scenario().string() + " --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["source"], "ddlsim");
  EXPECT_EQ(json["run"]["tool"], "ddlsim");
  EXPECT_EQ(json["run"]["transport"], "simulated");
  EXPECT_EQ(json["run"]["compute_scale"], 1.0);
  EXPECT_EQ(json["run"]["precision"], "fp32");
  EXPECT_FALSE(json["run"]["version"].get<std::string>().empty());
  EXPECT_FALSE(json["run"]["commit"].get<std::string>().empty());
  ASSERT_EQ(json["points"].size(), 6u);
  for (const auto& point : json["points"])
    for (const char* key : {"gpus", "hosts", "ranks_per_host", "algorithm", "parameters", "label", "iteration_s",
                            "images_per_s", "efficiency", "exposed_comm_s", "collectives"})
      EXPECT_TRUE(point.contains(key)) << key;
  EXPECT_DOUBLE_EQ(json["points"][0]["efficiency"].get<double>(), 1.0);
  // The algorithm and its parameters apart, so that a scaling curve is one series; the label has both.
  const nlohmann::json& point = json["points"][2];
  EXPECT_EQ(point["algorithm"], "ddl");
  EXPECT_EQ(point["parameters"], nlohmann::json::parse(R"({"dims": [4, 4]})"));
  EXPECT_EQ(point["label"], "ddl 4x4");
  // 16 Minsky GPUs: 4 nodes of 4.
  EXPECT_EQ(point["hosts"], 4);
  EXPECT_EQ(point["ranks_per_host"], 4);
}

TEST_F(DdlsimSimulate, TheSameSeedGivesByteIdenticalResultsWhateverTheJobsAndAnIntervalAroundEachPoint) {
  auto withSeed = [&](int seed) {
    return scenario([&](auto& j) {
             j["gpus"] = {1, 8};
             j["effects"] = {{"compute_jitter", "sourced"}, {"overlap_slowdown", "sourced"},
                             {"iteration_overhead_s", "sourced"}, {"seed", seed}};
           }).string() +
           " --json --samples 9";
  };
  const Result first = ddlsim(withSeed(1) + " --jobs 1");
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_EQ(ddlsim(withSeed(1) + " --jobs 1").out, first.out);
  // However many simulations run at once, each in its own process.
  EXPECT_EQ(ddlsim(withSeed(1) + " --jobs 3").out, first.out);
  EXPECT_NE(ddlsim(withSeed(2)).out, first.out);
  const nlohmann::json json = nlohmann::json::parse(first.out);
  EXPECT_EQ(json["run"]["effects"]["seed"], 1);
  EXPECT_EQ(json["run"]["effects"]["compute_jitter"], 0.002);
  EXPECT_EQ(json["run"]["fusion"], "size");
  for (const auto& point : json["points"]) {
    EXPECT_EQ(point["samples"], 9);
    for (const char* quantity : {"iteration_s", "images_per_s", "efficiency"}) {
      const std::string name(quantity);
      EXPECT_LE(point[name + "_p05"].get<double>(), point[name + "_p50"].get<double>()) << name;
      EXPECT_LE(point[name + "_p50"].get<double>(), point[name + "_p95"].get<double>()) << name;
    }
    // The overlap slowdown's prior is wide (0 to 40%): the samples' iteration times spread.
    if (point["gpus"] == 8) {
      EXPECT_LT(point["iteration_s_p05"].get<double>(), point["iteration_s_p95"].get<double>());
    }
  }
  // One GPU alone against itself under every draw (the per-iteration overhead moves both): all of its
  // efficiency's percentiles are 1, which a sample set against another sample's baseline would not be.
  EXPECT_NEAR(json["points"][0]["efficiency_p05"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(json["points"][0]["efficiency_p95"].get<double>(), 1.0, 1e-12);
  EXPECT_LT(json["points"][0]["iteration_s_p05"].get<double>(), json["points"][0]["iteration_s_p95"].get<double>());
  // --samples needs something uncertain; bad counts name the flag; --range says what replaced it.
  const std::string certain = scenario({}, "certain.json").string();
  const std::string uncertain = scenario([](auto& j) { j["effects"] = {{"compute_jitter", "sourced"}}; }, "uncertain.json").string();
  // Twelve points at 100,000 samples each: over a million simulations.
  const std::string twelvePoints = scenario([](auto& j) {
                                     j["gpus"] = {1, 2, 4, 8, 16, 32};
                                     j["effects"] = {{"compute_jitter", "sourced"}};
                                   }, "twelve.json").string();
  for (const std::string& command : {certain + " --samples 9", uncertain + " --samples 0", uncertain + " --samples -3",
                                     uncertain + " --samples many", uncertain + " --samples 100001",
                                     twelvePoints + " --samples 100000 --dry-run"}) {
    const Result refused = ddlsim(command);
    const std::string flags = command.substr(command.find(" --"));
    EXPECT_EQ(refused.exitCode, 2) << flags;
    EXPECT_NE(refused.err.find("--samples"), std::string::npos) << flags << ": " << refused.err;
    EXPECT_TRUE(refused.out.empty()) << flags;
  }
  const Result range = ddlsim(withSeed(1) + " --range");
  EXPECT_EQ(range.exitCode, 2);
  EXPECT_NE(range.err.find("replaced by --samples"), std::string::npos) << range.err;
  // On a machine where one simulation fits at a time, one runs at a time, and says so.
  ::setenv("DDLSCALE_MEMORY_BYTES", "60000000", 1);  // room for one simulation of about 40 MB
  const Result squeezed = ddlsim(withSeed(1) + " --jobs 3");
  ::unsetenv("DDLSCALE_MEMORY_BYTES");
  EXPECT_EQ(squeezed.out, first.out);
  EXPECT_NE(squeezed.err.find("running 1 at a time"), std::string::npos) << squeezed.err;
  // Without --samples, no interval; and the table says which effects were on, how many samples it took,
  // and each efficiency with its interval.
  EXPECT_FALSE(nlohmann::json::parse(ddlsim(scenario().string() + " --json").out)["points"][0].contains("efficiency_p50"));
  const Result table = ddlsim(withSeed(1).substr(0, withSeed(1).find(" --json")) + " --samples 9");
  EXPECT_NE(table.out.find("effects   compute_jitter 0.002 (sourced)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("samples   9 Monte Carlo samples"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("100.0% (90%: 100.0-100.0)"), std::string::npos) << table.out;
}

TEST_F(DdlsimSimulate, SensitivitySwingsEachInputAloneTheWidestFirstAndAllTogetherLast) {
  const std::string uncertain = scenario([](auto& j) {
                                  j["gpus"] = {1, 8};
                                  j["effects"] = {{"compute_jitter", "sourced"}, {"overlap_slowdown", "sourced"}};
                                }).string();
  const Result result = ddlsim(uncertain + " --sensitivity --samples 6");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("sensitivity  powerai-ddl-resnet50 at 8 GPUs"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("(6 samples)"), std::string::npos) << result.out;
  // For each algorithm: both effects, the seeds of the jitter's per-rank draws, then all together; the
  // overlap slowdown's prior (0 to 40%) swings the efficiency more than the jitter's (0 to 0.6%).
  for (const std::string label : {"ddl 4x2", "ring"}) {
    const std::size_t at = result.out.find("\n" + label + ": ");
    ASSERT_NE(at, std::string::npos) << label << "\n" << result.out;
    const std::string block = result.out.substr(at, result.out.find("\n\n", at + 1) - at);
    const std::size_t slowdown = block.find("overlap_slowdown"), jitter = block.find("compute_jitter"),
                      seeds = block.find("seeds of the per-rank draws"), together = block.find("all together");
    ASSERT_NE(slowdown, std::string::npos) << block;
    ASSERT_NE(jitter, std::string::npos) << block;
    ASSERT_NE(seeds, std::string::npos) << block;
    ASSERT_NE(together, std::string::npos) << block;
    EXPECT_LT(slowdown, jitter) << block;
    EXPECT_GT(together, std::max(jitter, seeds)) << block;
  }
  // The same seed, the same bytes.
  EXPECT_EQ(ddlsim(uncertain + " --sensitivity --samples 6 --jobs 1").out, result.out);
  // Nothing to vary, or what it cannot do: exit 2 naming the flag, nothing written.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {scenario({}, "certain.json").string() + " --sensitivity", "--sensitivity"},
      {uncertain + " --sensitivity --json", "--json"},
      {uncertain + " --sensitivity --gpus 1,8", "--gpus"},
      {uncertain + " --sensitivity --dry-run", "--sensitivity"},
      {uncertain + " --sensitivity --trace-gpus 8 --gpus 8", "--sensitivity"},
      {uncertain + " --sensitivity --share-out " + (dir_ / "share.json").string(), "--sensitivity"},
      {uncertain + " --sensitivity --samples 0", "--samples"},
  };
  for (const auto& [command, flag] : refused) {
    const Result bad = ddlsim(command);
    EXPECT_EQ(bad.exitCode, 2) << command;
    EXPECT_NE(bad.err.find(flag), std::string::npos) << command << ": " << bad.err;
    EXPECT_TRUE(bad.out.empty()) << command;
  }
}

TEST_F(DdlsimSimulate, ListsTheEffectsWithTheirSources) {
  const Result text = ddlsim("effects");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("overlap_slowdown"), std::string::npos);
  const nlohmann::json json = nlohmann::json::parse(ddlsim("effects --json").out);
  ASSERT_EQ(json["effects"].size(), effectTable().size());
  for (const auto& effect : json["effects"]) {
    EXPECT_LE(effect["low"].get<double>(), effect["central"].get<double>()) << effect["key"];
    EXPECT_LE(effect["central"].get<double>(), effect["high"].get<double>()) << effect["key"];
    EXPECT_FALSE(effect["source"].get<std::string>().empty()) << effect["key"];
  }
}

TEST_F(DdlsimSimulate, APointTwoEntriesShareIsSimulatedOnce) {
  // The topology's grid and a grid by hand are both "ddl 1" at 1 GPU and differ at 8 and 16.
  const Result result = ddlsim(scenario([](auto& j) {
                                 j["algorithms"] = {{{"name", "ddl"}, {"dims", "topology"}},
                                                    {{"name", "ddl"}, {"dims", {{"1", "1"}, {"8", "2x4"}, {"16", "2x8"}}}}};
                               }).string() + " --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  std::vector<std::string> points;
  for (const auto& point : json["points"])
    points.push_back(std::to_string(point["gpus"].get<int>()) + " " + point["label"].get<std::string>());
  EXPECT_EQ(points, (std::vector<std::string>{"1 ddl 1", "8 ddl 4x2", "16 ddl 4x4", "8 ddl 2x4", "16 ddl 2x8"}));
}

// The points of `json` as "GPUS LABEL" -> the point.
std::map<std::string, nlohmann::json> pointsByName(const nlohmann::json& json) {
  std::map<std::string, nlohmann::json> points;
  for (const auto& point : json["points"])
    points[std::to_string(point["gpus"].get<int>()) + " " + point["label"].get<std::string>()] = point;
  return points;
}

TEST_F(DdlsimSimulate, GpusRunsPartOfTheSweepWithTheSamePointsAsTheWhole) {
  // Against an 8-GPU baseline, so that each point's baseline is simulated though --gpus does not list it.
  const std::string file = scenario([](auto& j) { j["baseline_gpus"] = 8; }).string();
  const Result whole = ddlsim(file + " --json");
  ASSERT_EQ(whole.exitCode, 0) << whole.err;
  const Result part = ddlsim(file + " --json --gpus 16,1");
  ASSERT_EQ(part.exitCode, 0) << part.err;
  const std::map<std::string, nlohmann::json> all = pointsByName(nlohmann::json::parse(whole.out));
  const std::map<std::string, nlohmann::json> some = pointsByName(nlohmann::json::parse(part.out));
  std::vector<std::string> names;
  for (const auto& [name, point] : some) {
    names.push_back(name);
    EXPECT_EQ(point, all.at(name)) << name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"1 ddl 1", "1 ring", "16 ddl 4x4", "16 ring"}));
  const Result outside = ddlsim(file + " --gpus 2");
  EXPECT_EQ(outside.exitCode, 2);
  EXPECT_NE(outside.err.find("--gpus: 2 is not a GPU count of"), std::string::npos) << outside.err;
  EXPECT_EQ(outside.out, "");
}

TEST_F(DdlsimSimulate, TraceSimulatesTheTracedPointAloneAsTheSweepWould) {
  const std::string file = scenario().string();
  const Result whole = ddlsim(file + " --json");
  ASSERT_EQ(whole.exitCode, 0) << whole.err;
  const fs::path trace = dir_ / "trace.json";
  const Result traced = ddlsim(file + " --json --trace " + trace.string() + " --trace-gpus 8 --trace-algorithm ring");
  ASSERT_EQ(traced.exitCode, 0) << traced.err;
  const std::map<std::string, nlohmann::json> points = pointsByName(nlohmann::json::parse(traced.out));
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points.begin()->second, pointsByName(nlohmann::json::parse(whole.out)).at("8 ring"));
  EXPECT_TRUE(fs::exists(trace));
  // The traced point must lie inside --gpus where both are given.
  const Result apart = ddlsim(file + " --gpus 16 --trace " + (dir_ / "t.json").string() + " --trace-gpus 8");
  EXPECT_EQ(apart.exitCode, 2);
  EXPECT_NE(apart.err.find("--trace-gpus"), std::string::npos) << apart.err;
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
}

TEST_F(DdlsimRun, SaysItsVersionAndCommit) {
  const Result version = ddlsim("--version");
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_EQ(version.out.rfind("ddlsim 0.2.0 (commit ", 0), 0u) << version.out;
  EXPECT_EQ(version.err, "");
}

TEST_F(DdlsimSimulate, DryRunChecksAndCountsWithoutSimulatingOrWriting) {
  const fs::path out = dir_ / "points.json";
  // Two algorithms at 1, 8 and 16 GPUs: six points, each an iteration and its no-latency twin; --samples adds
  // one per sample.
  const Result plain = ddlsim(scenario().string() + " --dry-run --json --out " + out.string());
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  EXPECT_NE(plain.out.find(": 12 simulations of 6 points, each needing up to about"), std::string::npos) << plain.out;
  EXPECT_FALSE(fs::exists(out));
  const Result sampled = ddlsim(scenario([](auto& j) { j["effects"] = {{"compute_jitter", "sourced"}}; }).string() +
                                " --dry-run --samples 5");
  EXPECT_NE(sampled.out.find(": 42 simulations of 6 points"), std::string::npos) << sampled.out;
  const Result bad = ddlsim(scenario().string() + " --dry-run --gpus 2");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_EQ(bad.out, "");
}

TEST_F(DdlsimSimulate, PrintsATableOrCsvAndWritesFilesWhole) {
  Result result = ddlsim(scenario().string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("efficiency"), std::string::npos);
  EXPECT_NE(result.out.find("ddl 4x2"), std::string::npos);
  const fs::path csv = dir_ / "points.csv";
  result = ddlsim(scenario().string() + " --csv --out " + csv.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(result.out.empty());
  EXPECT_EQ(slurp(csv).rfind("gpus,algorithm,iteration_s,images_per_s,efficiency,exposed_comm_s,compute_s,exposed_latency_s,"
                                   "exposed_bandwidth_s,samples,iteration_s_p05,iteration_s_p50,iteration_s_p95,"
                                   "images_per_s_p05,images_per_s_p50,images_per_s_p95,efficiency_p05,efficiency_p50,"
                                   "efficiency_p95\n", 0), 0u);
}

TEST_F(DdlsimSimulate, ABadScenarioExitsTwoNamingTheFileAndFieldWithoutOutput) {
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](auto& j) { j["gpus"] = {1, 6}; }, "$.algorithms[0].dims"},
      {[](auto& j) { j["algorithms"][1]["name"] = "ringg"; }, "$.algorithms[1].name"},
      {[](auto& j) { j.erase("model"); }, "$.model"},
      {[](auto& j) { j["topology"] = "no-such-cluster"; }, "$.topology: no topology named 'no-such-cluster'"},
      {[](auto& j) { j["topology"] = "no-such-cluster.json"; }, "$.topology: no such file"},
      {[](auto& j) { j["batch_per_gpu"] = "32"; }, "$.batch_per_gpu"},
  };
  for (const auto& [edit, field] : cases) {
    const fs::path file = scenario(edit);
    const Result result = ddlsim(file.string() + " --out " + (dir_ / "never.json").string());
    EXPECT_EQ(result.exitCode, 2) << field << "\n" << result.err;
    EXPECT_NE(result.err.find(field), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
    EXPECT_FALSE(fs::exists(dir_ / "never.json"));
  }
  Result result = ddlsim((dir_ / "missing.json").string());
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("missing.json"), std::string::npos);
  result = ddlsim("");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("scenario"), std::string::npos) << result.err;
}

// Four DGX H100 nodes, one 400G NIC per GPU: a plain ring crosses every node boundary through one NIC, so it
// is held to about one NIC's 50 GB/s; eight channels, each entering the nodes at another GPU, use all eight.
TEST_F(DdlsimSimulate, NcclRingChannelsCarryTheTrafficOfEveryNic) {
  const auto busbw = [&](const std::string& algorithm) {
    const Result result = ddlsim("collective " + algorithm + " --topology dgx-h100-ndr --gpus 32 -b 1G -e 1G --json");
    EXPECT_EQ(result.exitCode, 0) << result.err;
    return result.exitCode == 0 ? nlohmann::json::parse(result.out)["rows"][0]["busbw_Bps"].get<double>() : 0.0;
  };
  const double ring = busbw("--algorithm ring");
  const double channels = busbw("--algorithm nccl-ring --channels 8 --ranks-per-node 8");
  const double oneChannel = busbw("--algorithm nccl-ring --channels 1 --ranks-per-node 8");
  EXPECT_LT(ring, 50e9);
  EXPECT_GT(channels, 6 * ring) << "ring " << ring << " B/s, 8 channels " << channels << " B/s";
  EXPECT_LT(channels, 8 * 50e9);
  EXPECT_NEAR(oneChannel, ring, 0.05 * ring);
  for (const char* bad : {"--channels 0", "--channels 33", "--channels two"}) {
    const Result result = ddlsim(std::string("collective --algorithm nccl-ring --ranks-per-node 8 ") + bad +
                                 " --topology dgx-h100-ndr --gpus 32 -b 1M -e 1M");
    EXPECT_EQ(result.exitCode, 2) << bad;
    EXPECT_NE(result.err.find("--channels"), std::string::npos) << bad << ": " << result.err;
    EXPECT_TRUE(result.out.empty()) << bad;
  }
}

// NCCL_PROTO as ddlsim takes it: LL's low per-hop latency wins at small sizes and its half share of each
// link loses at large ones; LL128 sits between at both; Simple is the topology as calibrated plus NCCL's base
// latency. Each run says its protocol; a name that is none is refused before anything is written.
TEST_F(DdlsimSimulate, ProtocolsTradeLatencyForBandwidthAsNcclsTuningModelSays) {
  const auto row = [&](const std::string& flags, const std::string& size) {
    const Result result = ddlsim("collective --algorithm nccl-ring --channels 4 --ranks-per-node 8 --topology dgx-a100-hdr "
                                 "--gpus 16 -b " + size + " -e " + size + " --json " + flags);
    EXPECT_EQ(result.exitCode, 0) << flags << ": " << result.err;
    return result.exitCode == 0 ? nlohmann::json::parse(result.out) : nlohmann::json::object();
  };
  const auto seconds = [&](const std::string& flags, const std::string& size) {
    const nlohmann::json json = row(flags, size);
    return json.contains("rows") ? json["rows"][0]["time_s"].get<double>() : 0.0;
  };
  const double calibrated = seconds("", "1K");
  const double simple = seconds("--protocol simple", "1K");
  const double ll = seconds("--protocol LL", "1K");
  const double ll128 = seconds("--protocol ll128", "1K");
  EXPECT_NEAR(simple - calibrated, 8.4e-6, 1e-9) << "Simple adds NCCL's base latency and nothing else";
  EXPECT_LT(ll, ll128);
  EXPECT_LT(ll128, simple);
  EXPECT_LT(ll, 0.4 * simple) << "LL's hops take a sixth of Simple's";
  const double bigSimple = seconds("--protocol simple", "1G");
  const double bigLL = seconds("--protocol ll", "1G");
  const double bigLL128 = seconds("--protocol ll128", "1G");
  EXPECT_NEAR(bigLL / bigSimple, 2.0, 0.05) << "half of every link carries flags";
  EXPECT_NEAR(bigLL128 / bigSimple, 1 / 0.92, 0.03);
  EXPECT_EQ(row("--protocol LL", "1K")["protocol"], "ll");
  EXPECT_FALSE(row("", "1K").contains("protocol"));
  const Result text = ddlsim("collective --algorithm ring --topology dgx-a100-hdr --gpus 8 --protocol ll128");
  EXPECT_NE(text.out.find("under NCCL's ll128 protocol"), std::string::npos) << text.out;
  const Result bad = ddlsim("collective --algorithm ring --topology dgx-a100-hdr --gpus 8 --protocol ll64 --out " +
                            (dir_ / "never.txt").string());
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--protocol: 'll64' is not a protocol"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "never.txt"));
}

// --algorithm nccl: NCCL's tuning model chooses each size's protocol and channels, and the row says what it
// chose; the time is that configuration's, simulated like any other, for an all-gather too; NCCL_PROTO's
// --protocol narrows the choice; what only a fixed algorithm takes is refused.
TEST_F(DdlsimSimulate, NcclChoosesEachSizesProtocolAndChannelsAsItsTuningModelDoes) {
  const auto sweep = [&](const std::string& flags) {
    const Result result = ddlsim("collective --topology dgx-a100-hdr --gpus 16 --json " + flags);
    EXPECT_EQ(result.exitCode, 0) << flags << ": " << result.err;
    return result.exitCode == 0 ? nlohmann::json::parse(result.out) : nlohmann::json::object();
  };
  const nlohmann::json nccl = sweep("--algorithm nccl -b 1K -e 1G -f 1024");
  ASSERT_EQ(nccl["rows"].size(), 3u);
  EXPECT_EQ(nccl["algorithm"], "nccl");
  EXPECT_EQ(nccl["label"], "nccl");
  const std::string small = nccl["rows"][0]["chosen"];
  const std::string large = nccl["rows"][2]["chosen"];
  EXPECT_EQ(small, "nccl-tree 1 channel, 8 per node, 524288 B chunks, ll") << "NCCL's tree wins 1 KB across two nodes";
  EXPECT_EQ(large, "nccl-ring 16 channels, 8 per node, simple");
  // The large size is exactly that configuration under that protocol.
  const nlohmann::json same = sweep("--algorithm nccl-ring --channels 16 --ranks-per-node 8 --protocol simple -b 1G -e 1G");
  EXPECT_DOUBLE_EQ(nccl["rows"][2]["time_s"].get<double>(), same["rows"][0]["time_s"].get<double>());
  const nlohmann::json forced = sweep("--algorithm nccl --protocol simple -b 1K -e 1K");
  EXPECT_EQ(forced["rows"][0]["chosen"].get<std::string>().find("nccl-"), 0u);
  EXPECT_NE(forced["rows"][0]["chosen"].get<std::string>().find(", simple"), std::string::npos);
  // An all-gather runs NCCL's ring (its tree is an allreduce), at the time of that ring under that protocol.
  const nlohmann::json gather = sweep("--algorithm nccl --collective all-gather -b 1G -e 1G");
  ASSERT_EQ(gather["rows"].size(), 1u);
  EXPECT_EQ(gather["rows"][0]["chosen"], "nccl-ring 16 channels, 8 per node, simple");
  const nlohmann::json ring =
      sweep("--algorithm nccl-ring --collective all-gather --channels 16 --ranks-per-node 8 --protocol simple -b 1G -e 1G");
  EXPECT_DOUBLE_EQ(gather["rows"][0]["time_s"].get<double>(), ring["rows"][0]["time_s"].get<double>());
  const Result text = ddlsim("collective --algorithm nccl --topology dgx-a100-hdr --gpus 8 -b 1K -e 1K");
  EXPECT_NE(text.out.find("nccl chose nccl-ring 1 channel, 8 per node, ll"), std::string::npos) << text.out;
  for (const auto& [flags, named] : {std::pair<std::string, std::string>{"--algorithm nccl --channels 4 --gpus 16", "--channels"},
                                     {"--algorithm nccl --gpus 12", "--gpus"},
                                     {"--algorithm nccl --gpus 16 --placement round-robin", "--placement"}}) {
    const Result refused = ddlsim("collective --topology dgx-a100-hdr -b 1K -e 1K " + flags);
    EXPECT_EQ(refused.exitCode, 2) << flags;
    EXPECT_EQ(refused.err.rfind("ddlsim: " + named, 0), 0u) << flags << ": " << refused.err;
    EXPECT_TRUE(refused.out.empty()) << flags;
  }
  const Result schedule = ddlsim("schedule --algorithm nccl --ranks 8");
  EXPECT_EQ(schedule.exitCode, 2);
  EXPECT_NE(schedule.err.find("--algorithm: nccl chooses per size"), std::string::npos) << schedule.err;
}

TEST_F(DdlsimSimulate, SimulatesOneCollectiveOnATopology) {
  Result result = ddlsim("collective --algorithm ddl --dims 4x4 --topology minsky-p100-ib-edr --gpus 16 --bytes 4000000 --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["ranks"], 16);
  ASSERT_EQ(json["rows"].size(), 1u);
  EXPECT_NEAR(json["rows"][0]["busbw_Bps"].get<double>(), json["rows"][0]["algbw_Bps"].get<double>() * 2 * 15 / 16, 1);
  result = ddlsim("collective --algorithm ring --topology minsky-p100-ib-edr --gpus 8 -b 1M -e 16M -f 4 --json --configuration x");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["configuration"], "x");
  ASSERT_EQ(json["rows"].size(), 3u);
  EXPECT_EQ(json["rows"][2]["bytes"], 16 << 20);
  EXPECT_LT(json["rows"][0]["time_s"].get<double>(), json["rows"][2]["time_s"].get<double>());
  result = ddlsim("collective --algorithm ring --topology minsky-p100-ib-edr --gpus 0");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--gpus"), std::string::npos);
  result = ddlsim("collective --algorithm ring --topology minsky-p100-ib-edr --gpus 4 -n 0");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--iters"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
  result = ddlsim("collective --algorithm ring --topology nowhere --gpus 4");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--topology: no topology named 'nowhere'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("minsky-p100-ib-edr"), std::string::npos) << "lists the known topologies: " << result.err;
}

TEST_F(DdlsimSimulate, ExportsAPlatformFileAndDescribesRoutes) {
  const fs::path xml = dir_ / "minsky.xml";
  Result result = ddlsim("platform minsky-p100-ib-edr --nodes 2 --xml --out " + xml.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(slurp(xml).rfind("<?xml", 0), 0u);
  result = ddlsim("platform minsky-p100-ib-edr");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("n0-xbus"), std::string::npos) << result.out;
  result = ddlsim("platform minsky-p100-ib-edr --nodes 0");
  EXPECT_EQ(result.exitCode, 2);
}

}  // namespace
}  // namespace ddl::testing

namespace ddl::testing {
namespace {

// --engine: each engine says it simulated the sweep, auto takes the step engine, and both give one answer.
TEST_F(DdlsimRun, CollectiveSaysWhichEngineSimulatedIt) {
  auto run = [&](const std::string& flags) {
    const Result result = ddlsim("collective --topology dgx-h100-ndr --gpus 16 -b 1M -e 4M --json " + flags);
    EXPECT_EQ(result.exitCode, 0) << flags << ": " << result.err;
    return result.exitCode == 0 ? nlohmann::json::parse(result.out) : nlohmann::json::object();
  };
  const nlohmann::json message = run("--algorithm ring --engine message");
  const nlohmann::json step = run("--algorithm ring --engine step");
  ASSERT_TRUE(message.contains("rows") && step.contains("rows"));
  EXPECT_EQ(message["run"]["engine"], "message");
  EXPECT_EQ(step["run"]["engine"], "step");
  ASSERT_EQ(step["rows"].size(), message["rows"].size());
  for (std::size_t i = 0; i < step["rows"].size(); ++i)
    EXPECT_NEAR(step["rows"][i]["time_s"].get<double>(), message["rows"][i]["time_s"].get<double>(),
                1e-4 * message["rows"][i]["time_s"].get<double>());
  EXPECT_EQ(run("--algorithm double-binary-tree")["run"]["engine"], "step");
  const Result text = ddlsim("collective --topology dgx-h100-ndr --gpus 16 --algorithm ring --engine step");
  EXPECT_NE(text.out.find("simulated by the step engine"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace ddl::testing
