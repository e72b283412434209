// `ddlrun` launched by mpirun, as a user runs it: results, exit codes, messages that name the option.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/sim/ddlsim_runner.hpp"

namespace ddl::testing {
namespace {

class Ddlrun : public DdlsimRun {
 protected:
  Result ddlrun(int ranks, const std::string& arguments) {
    const std::string command = "DDLSCALE_DATA_DIR=" + std::string(DDLSCALE_SOURCE_DIR) + " " + MPIEXEC_PROGRAM +
                                " --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 -np " + std::to_string(ranks) + " " + DDLRUN_PATH +
                                " " + arguments + " >" + (dir_ / "out").string() + " 2>" + (dir_ / "err").string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
  }
  // Without mpirun: the in-process transports run every rank in this one process.
  Result ddlrunAlone(const std::string& arguments) {
    const std::string command = "DDLSCALE_DATA_DIR=" + std::string(DDLSCALE_SOURCE_DIR) + " " + DDLRUN_PATH + " " + arguments +
                                " >" + (dir_ / "out").string() + " 2>" + (dir_ / "err").string();
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "out"), slurp(dir_ / "err")};
  }
};

TEST_F(Ddlrun, BenchReportsTimesAndBandwidthsWithNothingWrong) {
  const Result result = ddlrun(3, "bench --algorithm halving-doubling -b 1K -e 1M -f 32 -n 3 -w 1 --baseline mpi --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["ranks"], 3);
  ASSERT_EQ(json["rows"].size(), 3u);
  for (const auto& row : json["rows"]) {
    EXPECT_EQ(row["wrong"], 0);
    EXPECT_EQ(row["baseline"]["library"], "MPI");
    EXPECT_EQ(row["baseline"]["wrong"], 0);
    EXPECT_NEAR(row["busbw_Bps"].get<double>(), row["algbw_Bps"].get<double>() * 4 / 3, 1e-3);
  }
}

TEST_F(Ddlrun, BenchPrintsAnNcclTestsTable) {
  const Result result = ddlrun(2, "bench --algorithm ring --collective all-gather -b 4K -e 4K -n 2 -w 0");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("#wrong"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("# Out of bounds values : 0 OK"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("# Avg bus bandwidth    : "), std::string::npos) << result.out;
}

// --algorithm nccl --topology T: at each size what NCCL's tuning model chooses on that cluster for this many
// ranks (ddlsim collective --algorithm nccl simulates the same choice), run and checked like any algorithm,
// the choice on a comment line before its row and in the JSON's chosen.
TEST_F(Ddlrun, BenchRunsNcclsChoiceAtEverySizeFromTheTopology) {
  const Result table = ddlrunAlone("bench --algorithm nccl --topology dgx-h100-ndr --transport threads --ranks 16 "
                                   "--collective all-gather -b 1K -e 1M -f 32 -n 1 -w 0");
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("#  nccl chose nccl-ring 1 channel, 8 per node, ll\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("# Out of bounds values : 0 OK"), std::string::npos) << table.out;
  const Result json = ddlrunAlone("bench --algorithm nccl --topology dgx-h100-ndr --transport threads --ranks 16 "
                                  "-b 1K -e 16M -f 128 -n 1 -w 0 --json");
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const nlohmann::json sweep = nlohmann::json::parse(json.out);
  EXPECT_EQ(sweep["algorithm"], "nccl");
  ASSERT_EQ(sweep["rows"].size(), 3u);
  std::set<std::string> chosen;
  for (const auto& row : sweep["rows"]) {
    EXPECT_EQ(row["wrong"], 0);
    chosen.insert(row["chosen"].get<std::string>());
  }
  EXPECT_GT(chosen.size(), 1u) << "NCCL's model chooses differently across 1 KB to 16 MB";
  for (const auto& [arguments, field] : std::vector<std::pair<std::string, std::string>>{
           {"bench --algorithm nccl --transport threads --ranks 16", "--topology"},
           {"bench --algorithm ring --topology dgx-h100-ndr --transport threads --ranks 16", "--topology"},
           {"bench --algorithm nccl --topology nowhere --transport threads --ranks 16", "--topology"},
           {"bench --algorithm nccl --topology dgx-h100-ndr --channels 2 --transport threads --ranks 16", "--channels"},
           {"bench --algorithm nccl --topology dgx-h100-ndr --transport threads --ranks 12", "--ranks"}}) {
    const Result refused = ddlrunAlone(arguments);
    EXPECT_EQ(refused.exitCode, 2) << arguments << "\n" << refused.err;
    EXPECT_EQ(refused.err.rfind("ddlrun: " + field, 0), 0u) << arguments << "\n" << refused.err;
    EXPECT_TRUE(refused.out.empty()) << arguments;
  }
}

TEST_F(Ddlrun, SaysItsVersionAndCommit) {
  const Result version = ddlrunAlone("--version");
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_EQ(version.out.rfind("ddlrun 0.2.0 (commit ", 0), 0u) << version.out;
}

TEST_F(Ddlrun, BadArgumentsExitTwoNamingTheOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bench --algorithm butterfly", "algorithm"},
      {"bench --algorithm ddl --dims 3x3", "dims"},
      {"bench --algorithm ring -b 1M -e 1K", "--min-bytes"},
      {"bench --algorithm ring -b 12Q", "--min-bytes"},
      {"bench --algorithm ring --type int8", "--type"},
      {"bench --algorithm ring --baseline nccl", "--baseline"},
      {"bench --algorithm ring --transport carrier-pigeon", "--transport"},
      {"bench --algorithm ring --ranks 4", "--ranks"},
      {"bench --algorithm ring --transport threads --ranks 2", "--transport"},  // under mpirun -np 2
      {"bench --algorithm ring --transport threads --baseline mpi", "--baseline"},
      {"bench --algorithm ring --timeout-s 0", "--timeout-s"},
      {"bench --algorithm ring --transport nccl --check-agreement", "--check-agreement"},
      {"train /nonexistent/scenario.json", "/nonexistent/scenario.json"},
  };
  for (const auto& [arguments, field] : cases) {
    const Result result = ddlrun(2, arguments);
    EXPECT_EQ(result.exitCode, 2) << arguments << "\n" << result.err;
    EXPECT_NE(result.err.find(field), std::string::npos) << arguments << "\n" << result.err;
  }
}

TEST_F(Ddlrun, RanksStartedWithDifferentCommandLinesExitTwoNamingBothBeforeAnyRuns) {
  // mpirun's colon form starts each rank with its own line. Unchecked, a 1 KiB sweep ran against a 4 KiB one
  // and Open MPI aborted the job on a truncated message, with no word of ddlrun's.
  const std::string rank = std::string(DDLRUN_PATH) + " bench --algorithm ring -n 2 -w 1 --json --out " + (dir_ / "never.json").string();
  const std::string command = "DDLSCALE_DATA_DIR=" + std::string(DDLSCALE_SOURCE_DIR) + " " + MPIEXEC_PROGRAM +
                              " --allow-run-as-root --oversubscribe -np 1 " + rank + " -b 1K -e 1K : -np 1 " + rank +
                              " -b 4K -e 4K >" + (dir_ / "out").string() + " 2>" + (dir_ / "err").string();
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string err = slurp(dir_ / "err");
  EXPECT_NE(err.find("the ranks were started with different command lines"), std::string::npos) << err;
  EXPECT_NE(err.find("-b 1K -e 1K', rank 1 '"), std::string::npos) << err;
  EXPECT_NE(err.find("-b 4K -e 4K'"), std::string::npos) << err;
  EXPECT_EQ(slurp(dir_ / "out"), "");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "never.json"));
}

TEST_F(Ddlrun, BadInputOnlyInALaterAppContextIsNamedByThatContext) {
  // Rank 0's line is good and it waits in MPI_Init; the second context's is bad, found before MPI starts,
  // where only rank 0 used to speak: the job ended with status 2 and mpirun's text alone.
  const std::string command = "DDLSCALE_DATA_DIR=" + std::string(DDLSCALE_SOURCE_DIR) + " " + MPIEXEC_PROGRAM +
                              " --allow-run-as-root --oversubscribe -np 1 " + DDLRUN_PATH + " bench --algorithm ring : -np 2 " +
                              DDLRUN_PATH + " bench --algorithm butterfly >" + (dir_ / "out").string() + " 2>" +
                              (dir_ / "err").string();
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string err = slurp(dir_ / "err");
  const std::string message = "ddlrun: --algorithm: no allreduce algorithm named 'butterfly'";
  ASSERT_NE(err.find(message), std::string::npos) << err;
  EXPECT_EQ(err.find(message, err.find(message) + 1), std::string::npos) << "once, by the context's first rank\n" << err;
  EXPECT_EQ(slurp(dir_ / "out"), "");
}

TEST_F(Ddlrun, BenchWithTheAgreementCheckRunsEveryCollectiveExactly) {
  // The check adds a gather and an answer at rank 0 before each run, on a channel of its own: the runs'
  // messages must still match their own steps, on MPI and on the threads of one process.
  for (const char* collective : {"allreduce", "reduce-scatter", "all-gather"}) {
    const std::string options = std::string(" --algorithm ring --collective ") + collective +
                                " -b 1K -e 256K -f 16 -n 3 -w 1 -c 2 --check-agreement --json";
    for (const Result& result : {ddlrun(3, "bench" + options), ddlrunAlone("bench --transport threads --ranks 3" + options)}) {
      ASSERT_EQ(result.exitCode, 0) << collective << "\n" << result.err;
      const nlohmann::json json = nlohmann::json::parse(result.out);
      ASSERT_EQ(json["rows"].size(), 3u) << collective;
      for (const auto& row : json["rows"]) {
        EXPECT_EQ(row["wrong"], 0) << collective;
        EXPECT_EQ(row["out_of_place"]["wrong"], 0) << collective;
      }
    }
  }
}

TEST_F(Ddlrun, ThreadsTransportRunsEveryRankInOneProcess) {
  const Result result = ddlrunAlone("bench --transport threads --ranks 5 --algorithm ddl --dims 5 -b 1K -e 1M -f 32 -n 2 -w 1 "
                                    "--type float16 --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["ranks"], 5);
  EXPECT_EQ(json["type"], "float16");
  ASSERT_EQ(json["rows"].size(), 3u);
  for (const auto& row : json["rows"]) EXPECT_EQ(row["wrong"], 0);
}

TEST_F(Ddlrun, InProcessTransportsNeedARankCountThatThreadsCanHold) {
  for (const char* ranks : {"", " --ranks 0", " --ranks 100000"}) {
    const Result result = ddlrunAlone(std::string("bench --transport threads --algorithm ring") + ranks);
    EXPECT_EQ(result.exitCode, 2) << ranks;
    EXPECT_NE(result.err.find("--ranks"), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "") << "no partial output";
  }
}

TEST_F(Ddlrun, GpuTransportsRunWhereThereIsAGpuAndExitTwoSayingWhyWhereThereIsNone) {
  const Result result = ddlrunAlone("bench --transport cuda-peer --ranks 2 --algorithm ring -b 1M -e 1M --json");
  if (result.exitCode == 0) {
    EXPECT_EQ(nlohmann::json::parse(result.out)["rows"][0]["wrong"], 0);
  } else {
    EXPECT_EQ(result.exitCode, 2) << result.err;
    EXPECT_NE(result.err.find("--transport"), std::string::npos) << result.err;
    EXPECT_TRUE(result.out.empty()) << "no partial output: " << result.out;
  }
}

TEST_F(Ddlrun, DryRunChecksAndEstimatesTheRanksOfThisMachineAndRunsNothing) {
  // What a script asks before it puts ranks on this machine: the memory of the ranks here (mpirun's local ranks,
  // or --ranks), from the very estimate the run refuses with, and no MPI, no buffers, no results.
  const std::string scenario = std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json";
  const fs::path results = dir_ / "results.json";
  const Result train = ddlrunAlone("train " + scenario + " --transport threads --ranks 4 --json --out " + results.string() + " --dry-run");
  ASSERT_EQ(train.exitCode, 0) << train.err;
  // ResNet-50's 25,557,032 fp32 gradients and as much again in staging: 204.5 MB a rank.
  EXPECT_NE(train.out.find("ddlrun train: the options and the input hold; 4 rank(s) on this machine, each about 204.5 MB for "
                           "training resnet50, 817.8 MB in all of"),
            std::string::npos) << train.out;
  EXPECT_NE(train.out.find("nothing run (--dry-run)"), std::string::npos) << train.out;
  EXPECT_FALSE(fs::exists(results));

  const Result bench = ddlrun(2, "bench --algorithm ring -b 1K -e 64M --dry-run");
  ASSERT_EQ(bench.exitCode, 0) << bench.err;
  EXPECT_NE(bench.out.find("2 rank(s) on this machine, each about 201.3 MB for a 67.1 MB buffer"), std::string::npos) << bench.out;
  EXPECT_EQ(bench.out.find("#"), std::string::npos) << "no table: " << bench.out;

  const Result refused = ddlrunAlone("train " + scenario + " --transport threads --ranks 4 --dry-run --piece-bytes 0");
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_NE(refused.err.find("--piece-bytes"), std::string::npos) << refused.err;
  // What needs the job's size is checked at the size mpirun gives: ddl's dims must multiply to it.
  const Result misfit = ddlrun(3, "bench --algorithm ddl --dims 2x2 -e 1M --dry-run");
  EXPECT_EQ(misfit.exitCode, 2);
  EXPECT_NE(misfit.err.find("--dims"), std::string::npos) << misfit.err;
  EXPECT_TRUE(misfit.out.empty()) << misfit.out;
}

TEST_F(Ddlrun, TrainRunsOnTheThreadsTransportToo) {
  nlohmann::json scenario = nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json"));
  scenario["algorithms"] = {{{"name", "halving-doubling"}}};
  const fs::path path = dir_ / "scenario.json";
  std::ofstream(path) << scenario.dump();
  const Result result = ddlrunAlone("train " + path.string() + " --transport threads --ranks 3 --compute-scale 0.01 -n 1 -w 0 --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  ASSERT_EQ(json["points"].size(), 1u);
  EXPECT_EQ(json["points"][0]["gpus"], 3);
}

TEST_F(Ddlrun, TrainAllreducesGradientsInTheScenariosElementType) {
  // One bucket of every gradient (buckets are cut by bytes), exact in each type (a wrong sum exits 1), of half
  // the bytes in fp16 and bf16.
  std::map<std::string, double> firstBucketBytes;
  for (const char* gradients : {"fp32", "fp16", "bf16"}) {
    nlohmann::json scenario =
        nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json"));
    scenario["algorithms"] = {{{"name", "ring"}}};
    scenario["gradients"] = gradients;
    scenario["bucket_bytes"] = std::int64_t{1} << 40;
    const fs::path path = dir_ / (std::string(gradients) + ".json");
    std::ofstream(path) << scenario.dump();
    const Result result = ddlrunAlone("train " + path.string() + " --transport threads --ranks 3 --compute-scale 0.01 -n 1 -w 0 --json");
    ASSERT_EQ(result.exitCode, 0) << gradients << ": " << result.err;
    const nlohmann::json json = nlohmann::json::parse(result.out);
    EXPECT_EQ(json["run"]["precision"], gradients);
    EXPECT_EQ(json["run"]["compute_precision"], "fp32");
    firstBucketBytes[gradients] = json["points"][0]["collectives"][0]["bytes"].get<double>();
  }
  EXPECT_EQ(firstBucketBytes["fp16"], firstBucketBytes["fp32"] / 2);
  EXPECT_EQ(firstBucketBytes["bf16"], firstBucketBytes["fp16"]);
}

// A scenario's "auto" runs, bucket by bucket, what ddlsim chose for the same count from the same table.
TEST_F(Ddlrun, TrainRunsTheChoicesDdlsimMadeForEachBucket) {
  nlohmann::json scenario = nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50-tuned.json"));
  scenario["algorithms"] = {{{"name", "auto"},
                             {"tuning", std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/tuning/minsky-p100-ib-edr-allreduce-{gpus}.json"}}};
  scenario["gpus"] = {4};
  const fs::path path = dir_ / "scenario.json";
  std::ofstream(path) << scenario.dump();
  const Result simulated = ddlsim(path.string() + " --json");
  ASSERT_EQ(simulated.exitCode, 0) << simulated.err;
  const Result measured = ddlrun(4, "train " + path.string() + " --compute-scale 0.01 -n 1 -w 0 --json");
  ASSERT_EQ(measured.exitCode, 0) << measured.err;  // 0: every bucket's sums exact
  const nlohmann::json predicted = nlohmann::json::parse(simulated.out)["points"][0];
  const nlohmann::json point = nlohmann::json::parse(measured.out)["points"][0];
  EXPECT_EQ(point["algorithm"], "auto");
  EXPECT_EQ(point["label"], "auto");
  ASSERT_EQ(point["collectives"].size(), predicted["collectives"].size());
  for (std::size_t b = 0; b < point["collectives"].size(); ++b) {
    EXPECT_TRUE(point["collectives"][b].contains("chosen")) << "bucket " << b;
    EXPECT_EQ(point["collectives"][b]["chosen"], predicted["collectives"][b]["chosen"]) << "bucket " << b;
  }
}

TEST_F(Ddlrun, TrainWritesDdlsimsSchemaForEachAlgorithm) {
  nlohmann::json scenario = nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json"));
  scenario["algorithms"] = {{{"name", "ring"}}, {{"name", "ddl"}, {"dims", "topology"}}};
  const fs::path path = dir_ / "scenario.json";
  std::ofstream(path) << scenario.dump();
  const Result result = ddlrun(2, "train " + path.string() + " --compute-scale 0.01 -n 2 -w 1 --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["source"], "ddlrun");
  ASSERT_EQ(json["points"].size(), 2u);
  EXPECT_EQ(json["run"]["tool"], "ddlrun");
  EXPECT_EQ(json["run"]["transport"], "mpi");
  EXPECT_EQ(json["run"]["compute_scale"], 0.01);
  EXPECT_FALSE(json.contains("topology")) << "it ran on this machine, not on the scenario's cluster";
  EXPECT_EQ(json["points"][1]["algorithm"], "ddl");
  EXPECT_EQ(json["points"][1]["label"], "ddl 2");
  EXPECT_EQ(json["points"][1]["hosts"], 1);
  EXPECT_EQ(json["points"][1]["ranks_per_host"], 2);
  for (const auto& point : json["points"]) {
    EXPECT_EQ(point["gpus"], 2);
    EXPECT_GE(point["iteration_s"].get<double>(), point["compute_s"].get<double>());
    EXPECT_EQ(point["collectives"].size(), 4u);
    // The effects, measured per rank over the two timed iterations, busy compute by default.
    const nlohmann::json& effects = point["measured_effects"];
    EXPECT_EQ(effects["compute"], "busy host cores");
    EXPECT_EQ(effects["iterations"], 2);
    EXPECT_EQ(effects["compute_alone_s"].size(), 2u);
    EXPECT_GT(effects["compute_alone_s"][0].get<double>(), 0);
    EXPECT_TRUE(effects["estimates"].contains("compute_jitter"));
    EXPECT_TRUE(effects["estimates"].contains("allreduce_overhead_s"));
  }
  // Both points measured compute alone once, before either algorithm.
  EXPECT_EQ(json["points"][0]["measured_effects"]["compute_alone_s"], json["points"][1]["measured_effects"]["compute_alone_s"]);
}

TEST_F(Ddlrun, TrainWithSleepingComputeMeasuresNoSlowdown) {
  nlohmann::json scenario = nlohmann::json::parse(slurp(std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/powerai-ddl-resnet50.json"));
  scenario["algorithms"] = {{{"name", "ring"}}};
  const fs::path path = dir_ / "scenario.json";
  std::ofstream(path) << scenario.dump();
  const Result result =
      ddlrunAlone("train " + path.string() + " --transport threads --ranks 2 --compute-scale 0.01 -n 3 -w 0 --host-compute sleep --json");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json effects = nlohmann::json::parse(result.out)["points"][0]["measured_effects"];
  EXPECT_EQ(effects["compute"], "sleep");
  // A sleep ends on the clock, whatever runs beside it: no stretch, so a slowdown of exactly zero (or none
  // where the allreduces overlapped too little to tell).
  EXPECT_EQ(effects["compute_overlapped_s"], effects["compute_alone_s"]);
  if (effects["estimates"].contains("overlap_slowdown")) {
    EXPECT_EQ(effects["estimates"]["overlap_slowdown"].get<double>(), 0);
  }
  const Result bad = ddlrunAlone("train " + path.string() + " --transport threads --ranks 2 --host-compute spin");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--host-compute"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ddl::testing
