// `ddlsim tune` and `--algorithm auto --tuning FILE` as a user meets them: the table's best is what auto
// runs, and no fixed algorithm beats it at any size of the table.

#include <set>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "tests/sim/ddlsim_runner.hpp"

namespace ddl::testing {
namespace {

class DdlsimTune : public DdlsimRun {
 protected:
  // 8 GPUs of DGX-1 (one node of 8), 1 KiB to 1 MiB by 32: every algorithm and option, in a few seconds.
  static constexpr const char* kTune = "tune --topology dgx1-v100-ib-edr --gpus 8 -b 1K -e 1M -f 32";

  nlohmann::json json(const std::string& arguments) {
    const Result result = ddlsim(arguments);
    EXPECT_EQ(result.exitCode, 0) << arguments << ": " << result.err;
    return result.exitCode == 0 ? nlohmann::json::parse(result.out) : nlohmann::json::object();
  }
};

TEST_F(DdlsimTune, WritesTheBestPerSizeAndAutoRunsIt) {
  const fs::path table = dir_ / "table.json";
  ASSERT_EQ(ddlsim(std::string(kTune) + " --json --out " + table.string()).exitCode, 0);
  const nlohmann::json tuned = nlohmann::json::parse(slurp(table));
  ASSERT_EQ(tuned["rows"].size(), 3u);
  EXPECT_EQ(tuned["topology"], "dgx1-v100-ib-edr");
  EXPECT_EQ(tuned["gpus"], 8);
  EXPECT_EQ(tuned["run"]["engine"], "step");
  std::set<std::string> algorithms;
  for (const nlohmann::json& candidate : tuned["candidates"]) algorithms.insert(candidate["algorithm"].get<std::string>());
  std::size_t allreduces = 0;
  for (const AlgorithmDefinition* algorithm : allAlgorithms())
    allreduces += algorithm->collective == CollectiveKind::Allreduce && !algorithm->reducesInSwitch();
  EXPECT_EQ(algorithms.size(), allreduces) << "every allreduce algorithm that runs without a switch's help is ranked";

  // auto at the table's own sizes runs each row's best, to the same time: the slowest rank's (-a 3), by which
  // tune ranks them.
  const nlohmann::json automatic = json("collective --algorithm auto --tuning " + table.string() +
                                        " --topology dgx1-v100-ib-edr --gpus 8 -b 1K -e 1M -f 32 -a 3 --json");
  ASSERT_EQ(automatic["rows"].size(), 3u);
  EXPECT_EQ(automatic["algorithm"], "auto");
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(automatic["rows"][s]["chosen"], tuned["rows"][s]["best"]) << s;
    EXPECT_EQ(automatic["rows"][s]["time_s"], tuned["rows"][s]["time_s"]) << s;
  }
  // Every fixed algorithm, as ddlsim collective runs it by default, is at least as slow.
  for (const char* fixed : {"--algorithm ring", "--algorithm ddl --dims 8", "--algorithm halving-doubling",
                            "--algorithm double-binary-tree", "--algorithm hierarchical --ranks-per-node 4"}) {
    const nlohmann::json sweep =
        json(std::string("collective ") + fixed + " --topology dgx1-v100-ib-edr --gpus 8 -b 1K -e 1M -f 32 -a 3 --json");
    ASSERT_EQ(sweep["rows"].size(), 3u) << fixed;
    for (std::size_t s = 0; s < 3; ++s)
      EXPECT_GE(sweep["rows"][s]["time_s"].get<double>(), tuned["rows"][s]["time_s"].get<double>()) << fixed << " at row " << s;
  }
}

// Where the nodes' NVSwitch reduces (DGX H100), tune weighs NVLS as NCCL does, and auto runs it on the
// switch: at 64 MiB on one node of 8, nccl-nvls moves a buffer and a share each way where the ring moves
// 2 (p-1)/p buffers, and wins. (The runtimes, which cannot place the switch, refuse such a table:
// tests/bad_inputs/cases.py.)
TEST_F(DdlsimTune, WeighsNvlsWhereTheNodesSwitchReduces) {
  const fs::path table = dir_ / "h100.json";
  const std::string tune = "tune --topology dgx-h100-ndr --gpus 8 -b 64M -e 64M --algorithms ring,nccl-ring,nccl-nvls --json --out ";
  ASSERT_EQ(ddlsim(tune + table.string()).exitCode, 0);
  const nlohmann::json tuned = nlohmann::json::parse(slurp(table));
  std::set<std::string> labels;
  for (const nlohmann::json& candidate : tuned["candidates"]) labels.insert(candidate["label"].get<std::string>());
  EXPECT_TRUE(labels.count("nccl-nvls 16 channels, 131072 B shards")) << "NCCL's 16 NVLS channels";
  EXPECT_TRUE(labels.count("nccl-nvls 8 channels, 131072 B shards"));
  ASSERT_EQ(tuned["rows"].size(), 1u);
  EXPECT_EQ(tuned["rows"][0]["best"].get<std::string>().rfind("nccl-nvls", 0), 0u) << tuned["rows"][0]["best"];
  const nlohmann::json automatic =
      json("collective --algorithm auto --tuning " + table.string() + " --topology dgx-h100-ndr --gpus 8 -b 64M -e 64M -a 3 --json");
  ASSERT_EQ(automatic["rows"].size(), 1u);
  EXPECT_EQ(automatic["rows"][0]["chosen"], tuned["rows"][0]["best"]);
  EXPECT_EQ(automatic["rows"][0]["time_s"], tuned["rows"][0]["time_s"]);
}

TEST_F(DdlsimTune, TheTableIsTheSameBytesWhateverTheJobs) {
  const Result one = ddlsim(std::string(kTune) + " --algorithms ring,ddl,torus-2d --json -j 1");
  const Result two = ddlsim(std::string(kTune) + " --algorithms ring,ddl,torus-2d --json -j 2");
  ASSERT_EQ(one.exitCode, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
}

TEST_F(DdlsimTune, PrintsTheBestTheRunnerUpAndTheMargin) {
  const Result result = ddlsim(std::string(kTune) + " --algorithms ring,recursive-doubling");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("2 configurations"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("runner-up"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("recursive-doubling"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("%"), std::string::npos) << result.out;
}

TEST_F(DdlsimTune, DrawsThePlot) {
  const fs::path plot = dir_ / "tuning.png";
  const Result result = ddlsim(std::string(kTune) + " --algorithms ring,ddl --plot " + plot.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_GT(fs::file_size(plot), 1000u);
}

}  // namespace
}  // namespace ddl::testing
