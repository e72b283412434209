// Scenario files: shapes that follow the GPU count, and errors that name the file and field before any
// simulation starts.

#include <algorithm>
#include <fstream>
#include <span>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/training/iteration_steps.hpp"
#include "common/invalid_argument.hpp"
#include "common/statistics.hpp"
#include "scenarios/nccl_job.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_effects.hpp"

namespace ddl {
namespace {

std::string scenarioFile(const std::string& name) { return std::string(DDLSCALE_SOURCE_DIR) + "/scenarios/" + name + ".json"; }

TEST(Scenario, DdlDimsFollowTheClusterAsGpusPerHostHostsPerRackRacks) {
  const Scenario scenario = loadScenario(scenarioFile("powerai-ddl-resnet50"));
  const ScenarioAlgorithm& ddl = scenario.algorithms.front();
  ASSERT_EQ(ddl.name, "ddl");
  EXPECT_EQ(*scenario.optionsFor(ddl, 256).dims, (std::vector<int>{4, 16, 4}));
  EXPECT_EQ(*scenario.optionsFor(ddl, 64).dims, (std::vector<int>{4, 16}));
  EXPECT_EQ(*scenario.optionsFor(ddl, 8).dims, (std::vector<int>{4, 2}));
  EXPECT_EQ(*scenario.optionsFor(ddl, 1).dims, (std::vector<int>{1}));
}

TEST(Scenario, EveryShippedScenarioLoads) {
  for (const char* name : {"powerai-ddl-resnet50", "goyal-bigbasin-resnet50", "powerai-ddl-resnet101-22k"}) {
    const Scenario scenario = loadScenario(scenarioFile(name));
    EXPECT_EQ(scenario.gpuCounts.front(), 1) << name;
    EXPECT_EQ(scenario.batchPerGpu, 32) << name;
  }
  // Compute and gradients default to fp32.
  const Scenario ddl = loadScenario(scenarioFile("powerai-ddl-resnet50"));
  EXPECT_EQ(ddl.precision, "fp32");
  EXPECT_EQ(ddl.gradients, "fp32");
  EXPECT_EQ(ddl.iterationPlan().workload().elementBytes, 4);
  // Goyal et al. measure against one 8-GPU server, and the scenario says so.
  EXPECT_EQ(loadScenario(scenarioFile("goyal-bigbasin-resnet50")).baselineGpus, 8);
  EXPECT_EQ(loadScenario(scenarioFile("powerai-ddl-resnet50")).baselineGpus, 1);
}

// What loading `json` as `path` refuses, as "field: message", or "(no error)".
std::string loadError(const nlohmann::json& json, const std::string& path) {
  try {
    scenarioFromJson(json, path);
  } catch (const InvalidArgument& error) {
    return error.field() + ": " + error.message();
  }
  return "(no error)";
}

// {"name": "nccl"}: each bucket as NCCL's tuning model would allreduce it on the scenario's topology (under
// Simple); one GPU allreduces nothing; the point is labelled nccl.
TEST(Scenario, NcclChoosesEachBucketsAllreduceAsNcclWould) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(std::string(DDLSCALE_SOURCE_DIR) +
                                                            "/tests/benchmarks/scenarios/dgx-h100-resnet50-16k.json"));
  json["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json";
  json["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/resnet50.json";
  json["gpus"] = {1, 16, 64};
  json["algorithms"] = {{{"name", "nccl"}}};
  const Scenario scenario = scenarioFromJson(json, "nccl.json");
  const ScenarioAlgorithm& nccl = scenario.algorithms.front();
  EXPECT_TRUE(nccl.choosesPerBucket());
  EXPECT_EQ(scenario.labelFor(nccl, 64), "nccl");
  const IterationPlan plan = scenario.iterationPlan();
  const NcclJob job = ncclJobOf(scenario.topology, 64, NvlsUse::WhereNcclRunsIt);  // an iteration places the switches
  const BucketAlgorithms chosen = scenario.bucketAlgorithms(nccl, 64, plan);
  ASSERT_EQ(chosen.size(), plan.buckets().size());
  for (std::size_t b = 0; b < chosen.size(); ++b) {
    const double bytes = static_cast<double>(plan.buckets()[b].elements.count) * plan.workload().elementBytes;
    EXPECT_EQ(chosen[b].label(), ncclChoice(job, CollectiveKind::Allreduce, bytes, Protocol::Simple).algorithm.label()) << "bucket " << b;
  }
  EXPECT_EQ(chosen.front().algorithm->name, "nccl-nvls-tree") << "NCCL's choice under Simple on 8 DGX H100 nodes";
  // "nvls": false is NCCL_NVLS_ENABLE=0: NCCL's choice among its rings and trees alone, and a label that says so.
  nlohmann::json off = json;
  off["algorithms"] = {{{"name", "nccl"}, {"nvls", false}}};
  const Scenario withoutNvls = scenarioFromJson(off, "nccl.json");
  const BucketAlgorithms offChosen = withoutNvls.bucketAlgorithms(withoutNvls.algorithms.front(), 64, plan);
  EXPECT_EQ(offChosen.front().label(),
            ncclChoice(ncclJobOf(scenario.topology, 64), CollectiveKind::Allreduce,
                       static_cast<double>(plan.buckets().front().elements.count) * plan.workload().elementBytes, Protocol::Simple)
                .algorithm.label());
  EXPECT_FALSE(offChosen.front().algorithm->reducesInSwitch());
  EXPECT_EQ(withoutNvls.labelFor(withoutNvls.algorithms.front(), 64), "nccl, NVLS off");
  off["algorithms"] = {{{"name", "nccl"}}, {{"name", "nccl"}, {"nvls", false}}};
  EXPECT_NO_THROW(scenarioFromJson(off, "nccl.json")) << "two configurations, not one twice";
  off["algorithms"] = {{{"name", "nccl"}, {"nvls", "no"}}};
  EXPECT_EQ(loadError(off, "nccl.json").rfind("nccl.json: $.algorithms[0].nvls: expected true or false", 0), 0) << loadError(off, "nccl.json");
  EXPECT_EQ(scenario.bucketAlgorithms(nccl, 1, plan).front().algorithm->name, "ring");
  json["gpus"] = {12};
  try {
    scenarioFromJson(json, "nccl.json");
    FAIL() << "12 GPUs on nodes of 8 were taken";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "nccl.json: $.algorithms[0].name");
  }
  json["gpus"] = {16};
  json["placement"] = "round-robin";
  try {
    scenarioFromJson(json, "nccl.json");
    FAIL() << "nccl took ranks spread round-robin over the nodes";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.field(), "nccl.json: $.algorithms[0].name");
  }
  json["placement"] = "packed";
  json["algorithms"] = {{{"name", "nccl"}, {"channels", 4}}};
  EXPECT_THROW(scenarioFromJson(json, "nccl.json"), InvalidArgument);
}

// A transformer's batch counts sequences of the length its profiles were measured at: the scenario says that
// length, and no other is taken, since nothing scales compute to it.
TEST(Scenario, ASequenceModelRunsAtTheSequenceLengthItsProfilesWereMeasuredAt) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(scenarioFile("gpt2-xl-dgx-h100")));
  json["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json";
  json["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/gpt2-xl.json";
  const Scenario scenario = scenarioFromJson(json, "gpt2.json");
  EXPECT_EQ(scenario.model.sequenceLength(), 1024);
  EXPECT_EQ(loadScenario(scenarioFile("gpt2-xl-dgx-h100")).batchPerGpu, 16) << "sequences per GPU";
  EXPECT_EQ(scenario.iterationPlan().workload().elementBytes, 2) << "bf16 compute allreduces bf16 gradients";
  const auto fieldOf = [](const nlohmann::json& edited) { return loadError(edited, "gpt2.json"); };
  nlohmann::json edited = json;
  edited["sequence_length"] = 2048;
  EXPECT_EQ(fieldOf(edited).rfind("gpt2.json: $.sequence_length: 2048, but model 'gpt2-xl' is profiled at sequences of 1024", 0), 0)
      << fieldOf(edited);
  edited.erase("sequence_length");
  EXPECT_EQ(fieldOf(edited).rfind("gpt2.json: $: model 'gpt2-xl' trains on sequences of 1024 tokens", 0), 0) << fieldOf(edited);
  // Llama 2 7B's weights, gradients and Adam's state, 16 bytes per parameter, are 107.8 GB: every GPU holding
  // them all, as DDP does, outgrows an 80 GB H100 before any activation.
  edited = json;
  edited["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/llama2-7b.json";
  edited["sequence_length"] = 4096;
  EXPECT_EQ(fieldOf(edited).rfind("gpt2.json: $.model: llama2-7b needs 107.8 GB per GPU for its model states alone", 0), 0)
      << fieldOf(edited);
  EXPECT_NE(fieldOf(edited).find("80.0 GB of each H100"), std::string::npos) << fieldOf(edited);
  nlohmann::json images = nlohmann::json::parse(std::ifstream(scenarioFile("powerai-ddl-resnet50")));
  images["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/minsky-p100-ib-edr.json";
  images["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/resnet50.json";
  images["sequence_length"] = 1024;
  EXPECT_EQ(fieldOf(images).rfind("gpt2.json: $.sequence_length: model 'resnet50' trains on images", 0), 0) << fieldOf(images);
}

// A sharded plan keeps a share of the model's states that shrinks with the GPUs: Llama 2 7B, which no H100
// holds under DDP, fits under zero3 on 8 of them, but not on one; the plan reduce-scatters and all-gathers,
// so its algorithms must be named algorithms of both kinds.
// Llama 2 7B on DGX H100 under zero3 at `gpus`, with `algorithms`: GPT-2 XL's scenario made a sharded one.
nlohmann::json llamaUnderZero3(const char* algorithms, const std::vector<int>& gpus) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(scenarioFile("gpt2-xl-dgx-h100")));
  json["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json";
  json["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/llama2-7b.json";
  json["sequence_length"] = 4096;
  json["batch_per_gpu"] = 16;
  json["algorithms"] = nlohmann::json::parse(algorithms);
  json["gpus"] = gpus;
  json["parallelism"] = "zero3";
  return json;
}

TEST(Scenario, ShardedPlansFitWhereTheirShareFitsAndNameCollectivesOfBothKinds) {
  const nlohmann::json json = llamaUnderZero3(R"([{"name": "ring"}])", {8, 16});
  const Scenario scenario = scenarioFromJson(json, "llama.json");
  EXPECT_EQ(scenario.parallelism, Parallelism::Zero3);
  EXPECT_EQ(loadScenario(scenarioFile("gpt2-xl-dgx-h100")).parallelism, Parallelism::Ddp) << "the default";
  const auto fieldOf = [](const nlohmann::json& edited) { return loadError(edited, "llama.json"); };
  nlohmann::json edited = json;
  edited["gpus"] = {8, 1};
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.gpus[1]: llama2-7b under zero3 needs 107.8 GB per GPU at 1 GPUs", 0), 0) << fieldOf(edited);
  edited["parallelism"] = "zero1";
  edited["gpus"] = {2};
  EXPECT_EQ(fieldOf(edited), "(no error)") << "4 + 12/2 bytes per parameter: 67.4 GB";
  edited["parallelism"] = "zero4";
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.parallelism: 'zero4' is not one of ddp, zero1, zero2, zero3, fsdp or hybrid", 0), 0) << fieldOf(edited);
  edited = json;
  edited["algorithms"] = nlohmann::json::parse(R"([{"name": "ring"}, {"name": "nccl"}])");
  EXPECT_EQ(fieldOf(edited), "(no error)") << "NCCL's rings reduce-scatter and all-gather";
  edited["parallelism"] = "hybrid";
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.algorithms[1].name: 'nccl' under hybrid", 0), 0) << fieldOf(edited);
  edited["parallelism"] = "zero3";
  edited["algorithms"] = nlohmann::json::parse(R"([{"name": "halving-doubling"}])");
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.algorithms[0].name: zero3 reduce-scatters and all-gathers: no reduce-scatter algorithm named 'halving-doubling'", 0), 0)
      << fieldOf(edited);
  edited = json;
  edited.erase("bucket_bytes");
  edited["fusion"] = nlohmann::json::parse(R"({"policy": "horovod"})");
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.parallelism: zero3 fills its buckets by size", 0), 0) << fieldOf(edited);
  // Hybrid shards within each node of 8: it needs whole nodes of consecutive ranks, and keeps 1/8 of the
  // model's states at any count.
  edited = json;
  edited["parallelism"] = "hybrid";
  edited["gpus"] = {8, 1024};
  EXPECT_EQ(fieldOf(edited), "(no error)");
  edited["gpus"] = {8, 12};
  EXPECT_EQ(fieldOf(edited), "llama.json: $.gpus[1]: hybrid shards within nodes of 8 GPUs: 12 GPUs leave a node part full");
  edited["gpus"] = {8};
  edited["placement"] = "round-robin";
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.parallelism: hybrid shards within each node, over consecutive ranks", 0), 0) << fieldOf(edited);
  edited = json;
  edited["overlap_backward"] = false;
  EXPECT_EQ(fieldOf(edited).rfind("llama.json: $.parallelism: zero3 overlaps its collectives with backward", 0), 0) << fieldOf(edited);
}

// {"name": "nccl"} under a sharded plan: each unit's reduce-scatter and all-gather as NCCL's tuning model would
// run them (its ring: its tree is an allreduce), at the size the plan runs them, a whole block per GPU.
TEST(Scenario, NcclChoosesEachUnitsReduceScatterAndAllGatherAsNcclWould) {
  const Scenario scenario = scenarioFromJson(llamaUnderZero3(R"([{"name": "nccl"}])", {8, 24}), "llama.json");
  const IterationPlan plan = scenario.iterationPlan();
  const NcclJob job = ncclJobOf(scenario.topology, 24);
  const std::vector<BucketAlgorithms> perKind = scenario.shardedBucketAlgorithms(scenario.algorithms.front(), 24, plan);
  const std::span<const CollectiveKind> kinds = collectiveKindsOf(Parallelism::Zero3);
  ASSERT_EQ(perKind.size(), kinds.size());
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    ASSERT_EQ(perKind[k].size(), plan.buckets().size());
    for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
      const Elements padded = (plan.buckets()[b].elements.count + 23) / 24 * 24;
      const NcclChoice nccl = ncclChoice(job, kinds[k], static_cast<double>(padded) * plan.workload().elementBytes, Protocol::Simple);
      EXPECT_EQ(perKind[k][b].algorithm, &findAlgorithm(kinds[k], "nccl-ring")) << toString(kinds[k]) << ", unit " << b;
      EXPECT_EQ(perKind[k][b].label(), nccl.algorithm.label()) << toString(kinds[k]) << ", unit " << b;
    }
  }
}

// topology_overrides.gpus_per_node: the job runs on each node's first GPUs, and what a scenario derives from
// the node (ranks per node, NCCL's channels, the grid) follows the GPUs kept; the cluster is named for it.
TEST(Scenario, AJobOnSomeOfEachNodesGpusDerivesItsOptionsFromThem) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(scenarioFile("gpt2-xl-dgx-h100")));
  json["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/dgx-h100-ndr.json";
  json["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/gpt2-xl.json";
  json["topology_overrides"] = {{"gpus_per_node", 4}};
  json["gpus"] = {4, 16};
  json["baseline_gpus"] = 4;
  json["algorithms"] = nlohmann::json::parse(R"([{"name": "nccl-ring", "ranks_per_node": "node", "channels": "topology"},
                                                  {"name": "ddl", "dims": "topology"}])");
  const Scenario scenario = scenarioFromJson(json, "half.json");
  EXPECT_EQ(scenario.topology.node.gpus, 4);
  EXPECT_EQ(scenario.topology.name, "dgx-h100-ndr (4 GPUs per node)");
  const AlgorithmOptions nccl = scenario.optionsFor(scenario.algorithms[0], 16);
  EXPECT_EQ(nccl.ranksPerNode, 4);
  EXPECT_EQ(nccl.channels, 8) << "two per NIC of the four GPUs kept";
  EXPECT_EQ(scenario.optionsFor(scenario.algorithms[1], 16).dims, (std::vector<int>{4, 4}));
}

class ScenarioErrors : public ::testing::Test {
 protected:
  std::string faultyField(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json json = nlohmann::json::parse(std::ifstream(scenarioFile("powerai-ddl-resnet50")));
    json["topology"] = std::string(DDLSCALE_SOURCE_DIR) + "/topologies/minsky-p100-ib-edr.json";
    json["model"] = std::string(DDLSCALE_SOURCE_DIR) + "/models/resnet50.json";
    edit(json);
    // One file per test: ctest runs the tests of this fixture side by side, and a shared one raced (seen in CI).
    const std::string path = testing::TempDir() + "/scenario-" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".json";
    std::ofstream(path) << json.dump();
    try {
      loadScenario(path);
    } catch (const InvalidArgument& error) {
      return error.field().rfind(path, 0) == 0 ? error.field().substr(path.size() + 2) : error.field();
    }
    return "(no error)";
  }
};

TEST_F(ScenarioErrors, NameTheField) {
  EXPECT_EQ(faultyField([](auto&) {}), "(no error)");
  EXPECT_EQ(faultyField([](auto& j) { j.erase("gpus"); }), "$.gpus");
  EXPECT_EQ(faultyField([](auto& j) { j["gpus"] = {4, -8}; }), "$.gpus[1]");
  EXPECT_EQ(faultyField([](auto& j) { j["algorithms"][1]["name"] = "butterfly"; }), "$.algorithms[1].name");
  EXPECT_EQ(faultyField([](auto& j) {
              j["algorithms"][0]["dims"] = {{"1", "1"},     {"4", "4"},     {"8", "4x2"},      {"16", "4x4"},
                                            {"32", "4x8"},  {"64", "4x16"}, {"128", "4x16x2"}, {"256", "4x8x4"}};
            }),
            "$.algorithms[0]");
  EXPECT_EQ(faultyField([](auto& j) { j["algorithms"][0]["dims"] = {{"256", "4x16x4"}}; }), "$.algorithms[0].dims");
  EXPECT_EQ(faultyField([](auto& j) { j["gpus"] = {1, 4, 18}; }), "$.algorithms[0].dims");
  EXPECT_EQ(faultyField([](auto& j) { j["batch_per_gpu"] = 48; }), "$.batch_per_gpu");
  EXPECT_EQ(faultyField([](auto& j) { j["precision"] = "fp8"; }), "$.precision");
  EXPECT_EQ(faultyField([](auto& j) { j["precision"] = "bf16"; }), "$.precision") << "the P100 has no bf16 profile";
  EXPECT_EQ(faultyField([](auto& j) { j["gradients"] = "amp"; }), "$.gradients");
  EXPECT_EQ(faultyField([](auto& j) { j["gradients"] = "bf16"; }), "(no error)");
  EXPECT_EQ(faultyField([](auto& j) { j["baseline_gpus"] = 0; }), "$.baseline_gpus");
  EXPECT_EQ(faultyField([](auto& j) { j["baseline_gpus"] = "8"; }), "$.baseline_gpus");
  // ddl's grid follows the topology, which 6 GPUs do not fill: no baseline can be run there.
  EXPECT_EQ(faultyField([](auto& j) { j["baseline_gpus"] = 6; }), "$.baseline_gpus");
  EXPECT_EQ(faultyField([](auto& j) { j["baseline_gpus"] = 8; }), "(no error)");
  // A grid given for the baseline's count, which $.gpus need not list, is no slip.
  EXPECT_EQ(faultyField([](auto& j) {
              j["baseline_gpus"] = 2;
              j["algorithms"][0]["dims"] = {{"1", "1"},     {"2", "2"},     {"4", "4"},      {"8", "4x2"},    {"16", "4x4"},
                                            {"32", "4x8"},  {"64", "4x16"}, {"128", "4x16x2"}, {"256", "4x16x4"}};
            }),
            "(no error)");
  EXPECT_EQ(faultyField([](auto& j) { j["placement"] = "scattered"; }), "$.placement");
  EXPECT_EQ(faultyField([](auto& j) { j["bucket_size"] = 1; }), "$.bucket_size");
  EXPECT_EQ(faultyField([](auto& j) { j["overlap_backward"] = "yes"; }), "$.overlap_backward");
  EXPECT_EQ(faultyField([](auto& j) { j["topology"] = "/nonexistent/cluster.json"; }), "$.topology");
  EXPECT_EQ(faultyField([](auto& j) {
              j["gpus"] = {1, 4};
              j["algorithms"][0]["dims"] = {{"1", "1"}, {"4", "4"}, {"512", "4x16x8"}};
            }),
            "$.algorithms[0].dims.512");
}

TEST_F(ScenarioErrors, NameTheFieldOfAnEffectOrAFusionPolicy) {
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"compute_jitter", "sourced"}, {"overlap_slowdown", 0.1}}; }), "(no error)");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"compute_jitter", -0.1}}; }), "$.effects.compute_jitter");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"compute_jitter", "measured"}}; }), "$.effects.compute_jitter");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"overlap_slowdown", 5}}; }), "$.effects.overlap_slowdown");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"jitter", 0.1}}; }), "$.effects.jitter");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"seed", -1}}; }), "$.effects.seed");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"iterations", 0}}; }), "$.effects.iterations");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"gpu_time_factors", "v100-resnet50-longhorn"}}; }), "(no error)");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"gpu_time_factors", "p100-fleet"}}; }), "$.effects.gpu_time_factors");
  EXPECT_EQ(faultyField([](auto& j) {
              j["effects"] = {{"gpu_time_factors", "v100-resnet50-longhorn"}, {"gpu_speed_spread", 0.01}};
            }),
            "$.effects.gpu_time_factors");
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = 0.1; }), "$.effects");
  EXPECT_EQ(faultyField([](auto& j) {
              j.erase("bucket_bytes");
              j["fusion"] = {{"policy", "ddp"}, {"first_bucket_bytes", 1 << 20}};
            }),
            "(no error)");
  EXPECT_EQ(faultyField([](auto& j) { j["fusion"] = {{"policy", "ddp"}}; }), "$.fusion") << "beside $.bucket_bytes";
  EXPECT_EQ(faultyField([](auto& j) {
              j.erase("bucket_bytes");
              j["fusion"] = {{"policy", "caffe"}};
            }),
            "$.fusion.policy");
  EXPECT_EQ(faultyField([](auto& j) {
              j.erase("bucket_bytes");
              j["fusion"] = {{"policy", "per-layer"}, {"bucket_bytes", 1}};
            }),
            "$.fusion.bucket_bytes");
  EXPECT_EQ(faultyField([](auto& j) {
              j.erase("bucket_bytes");
              j["fusion"] = {{"policy", "horovod"}, {"cycle_time_s", 0}};
            }),
            "$.fusion.cycle_time_s");
  EXPECT_EQ(faultyField([](auto& j) {
              j.erase("bucket_bytes");
              j["fusion"] = {{"policy", "size"}, {"first_bucket_bytes", 1}};
            }),
            "$.fusion.first_bucket_bytes");
}

TEST(Scenario, SourcedEffectsTakeTheirCentralValueAndSamplesDrawThemAlone) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(scenarioFile("powerai-ddl-resnet50")));
  json["effects"] = {{"compute_jitter", "sourced"}, {"iteration_overhead_s", "sourced"}, {"overlap_slowdown", 0.3}, {"seed", 7}};
  const Scenario scenario = scenarioFromJson(json, scenarioFile("powerai-ddl-resnet50"));
  const EffectDeclaration& jitter = *findEffectDeclaration("compute_jitter");
  const EffectDeclaration& overhead = *findEffectDeclaration("iteration_overhead_s");
  EXPECT_EQ(scenario.effects.computeJitter, jitter.central);
  EXPECT_EQ(scenario.effects.seed, 7u);
  EXPECT_EQ(scenario.effects.iterationOverheadSeconds, overhead.central);
  ASSERT_EQ(scenario.sourcedEffects.size(), 2u);
  // A sample draws the sourced ones within their ranges; a value the file gives stays.
  for (std::uint64_t sample = 0; sample < 50; ++sample) {
    const IterationEffects drawn = sampleEffects(scenario.effects, scenario.sourcedEffects, sample);
    EXPECT_GE(drawn.computeJitter, jitter.low);
    EXPECT_LE(drawn.computeJitter, jitter.high);
    EXPECT_GE(drawn.iterationOverheadSeconds, overhead.low);
    EXPECT_LE(drawn.iterationOverheadSeconds, overhead.high);
    EXPECT_EQ(drawn.overlapSlowdown, 0.3);
  }
  // Every declared effect has a range around its central value and a source.
  for (const EffectDeclaration& effect : effectTable()) {
    EXPECT_LE(effect.low, effect.central) << effect.key;
    EXPECT_LE(effect.central, effect.high) << effect.key;
    EXPECT_LE(effect.high, effect.maximum) << effect.key;
    EXPECT_FALSE(effect.source.empty()) << effect.key;
    EXPECT_FALSE(effect.confidence.empty()) << effect.key;
  }
}

TEST_F(ScenarioErrors, NameTheFieldOfABadTimeFactorFile) {
  auto factorsFile = [](const std::string& text) {
    const std::string path = testing::TempDir() + "/factors.json";
    std::ofstream(path) << text;
    return path;
  };
  auto withFactors = [&](const std::string& text) {
    const std::string path = factorsFile(text);
    return faultyField([&](auto& j) { j["effects"] = {{"gpu_time_factors", path}}; });
  };
  const std::string in = testing::TempDir() + "/factors.json: ";
  EXPECT_EQ(withFactors(R"({"time_factors": [1, 1.1]})"), "(no error)");
  EXPECT_EQ(withFactors(R"({"time_factors": []})"), in + "$.time_factors");
  EXPECT_EQ(withFactors(R"({"time_factors": [1, 0]})"), in + "$.time_factors[1]");
  EXPECT_EQ(withFactors(R"({"time_factors": [1, "fast"]})"), in + "$.time_factors[1]");
  EXPECT_EQ(withFactors(R"({"gpus": 3, "time_factors": [1, 1.1]})"), in + "$.gpus");
  EXPECT_EQ(withFactors(R"({"time_factor": [1]})"), in + "$.time_factor");
  EXPECT_EQ(withFactors("[1, 2]"), in + "$");
}

TEST_F(ScenarioErrors, NameTheFieldOfABadJobTimeFactorFile) {
  auto withFactors = [&](const std::string& text) {
    const std::string path = testing::TempDir() + "/jobs.json";
    std::ofstream(path) << text;
    return faultyField([&](auto& j) { j["effects"] = {{"job_time_factors", path}}; });
  };
  const std::string in = testing::TempDir() + "/jobs.json: ";
  EXPECT_EQ(withFactors(R"({"jobs": 2, "iteration_s": [1.1, 1.0], "time_factors": [0.9524, 1.0476]})"), "(no error)");
  EXPECT_EQ(withFactors(R"({"jobs": 3, "time_factors": [1, 1.1]})"), in + "$.jobs");
  EXPECT_EQ(withFactors(R"({"iteration_s": [1.0], "time_factors": [1, 1.1]})"), in + "$.iteration_s");
  EXPECT_EQ(withFactors(R"({"iteration_s": [1.0, -1], "time_factors": [1, 1.1]})"), in + "$.iteration_s[1]");
  EXPECT_EQ(withFactors(R"({"gpus": 2, "time_factors": [1, 1.1]})"), in + "$.gpus") << "a fleet's file is not a machine's jobs";
  EXPECT_EQ(withFactors(R"({"iteration_s": [2.0, 2.2], "time_factors": [0.9524, 1.3]})"), in + "$.time_factors[1]")
      << "factors that are not the steps over their median";
  EXPECT_EQ(faultyField([](auto& j) { j["effects"] = {{"job_time_factors", "no-such-machine"}}; }), "$.effects.job_time_factors");
}

TEST(Scenario, TheShippedJobSpeedsAreTheirJobsStepsOverTheirMedian) {
  // By name, as --job-time-factors takes it: each factor a job's step over the jobs' median, sorted.
  Scenario scenario = loadScenario(scenarioFile("powerai-ddl-resnet50"));
  useJobTimeFactors(scenario, "cpu-2core-resnet18-2026-12-07", "--job-time-factors");
  const nlohmann::json file = nlohmann::json::parse(std::ifstream(scenario.effects.jobTimeFactorsFile));
  std::vector<double> steps = file.at("iteration_s").get<std::vector<double>>();
  ASSERT_EQ(steps.size(), scenario.effects.jobTimeFactors.size());
  const double middle = median(steps);
  std::sort(steps.begin(), steps.end());
  for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_NEAR(scenario.effects.jobTimeFactors[i], steps[i] / middle, 1e-4) << i;
}

TEST(Scenario, TheShippedFleetsTimeFactorsLoadAroundTheirMedian) {
  nlohmann::json json = nlohmann::json::parse(std::ifstream(scenarioFile("powerai-ddl-resnet50")));
  json["effects"] = {{"gpu_time_factors", "v100-resnet50-longhorn"}};
  const Scenario scenario = scenarioFromJson(json, scenarioFile("powerai-ddl-resnet50"));
  std::vector<double> factors = scenario.effects.gpuTimeFactors;
  ASSERT_EQ(factors.size(), 336u);
  std::sort(factors.begin(), factors.end());
  EXPECT_NEAR(factors[factors.size() / 2], 1, 1e-3);
}

}  // namespace
}  // namespace ddl
