#pragma once
// A scenario file (scenarios/*.json): which cluster, which model on which GPU at what batch, which
// allreduce algorithms, which bucket size, and which GPU counts to sweep. Everything is checked when the
// file is loaded, so a sweep never stops half-way on bad input. See README.md for the format.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/collectives/option_table.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/parallelism.hpp"
#include "algorithms/training/scaling_point.hpp"
#include "models/model.hpp"
#include "topologies/cluster.hpp"

namespace ddl {

// One option of a scenario's algorithm (algorithms/collectives/option_table.hpp), as the file gives it.
struct ScenarioOption {
  const OptionDeclaration* declaration = nullptr;
  // The option's derivedBy value ("topology", "node"): derived from the cluster at each GPU count.
  bool derived = false;
  // A grid per GPU count (a Grid option).
  std::vector<std::pair<int, OptionValue>> byGpus;
  // One value for every GPU count.
  std::optional<OptionValue> value;
};

// The entries of a scenario's algorithms that choose per gradient bucket: {"name": "auto", "tuning": FILE},
// from tuning tables, and {"name": "nccl"}, as NCCL's tuning model would on the scenario's topology.
inline constexpr const char* kTunedAlgorithm = "auto";
inline constexpr const char* kNcclAlgorithm = "nccl";

// One algorithm of a scenario, with options that may follow the GPU count.
struct ScenarioAlgorithm {
  std::string name;
  std::vector<ScenarioOption> options;  // in the option table's order
  std::string path;  // where it sits in the file, for messages
  // "auto": the tuning table (`ddlsim tune`) of N GPUs is this file with "{gpus}" replaced by N; under a
  // sharded parallelism, with "{collective}" replaced by each kind's name (reduce-scatter, all-gather).
  std::string tuning;
  // "nccl": whether NCCL may run NVLS and NVLS-tree where its model would ("nvls": false is NCCL_NVLS_ENABLE=0,
  // as on clusters that turn it off, and a simulation that costs rings' and trees' time: sim/README.md).
  bool nvls = true;

  bool tuned() const { return name == kTunedAlgorithm; }
  bool ncclChosen() const { return name == kNcclAlgorithm; }
  bool choosesPerBucket() const { return tuned() || ncclChosen(); }
};

// A result someone published for the experiment a scenario models, to set predictions beside (plots, tables).
struct PublishedPoint {
  int gpus = 0;
  double efficiency = 0;                // scaling efficiency, 0..1, against the publication's own baseline
  std::optional<double> imagesPerSecond;
  std::string label;                    // "PowerAI DDL (Caffe), ResNet-50"
  std::string source;                   // where it was read: "arXiv 1708.02188"
};

struct Scenario {
  std::string name;
  std::string path;
  Topology topology;
  Model model;
  std::string gpu;
  int batchPerGpu = 0;
  std::string precision = "fp32";  // the compute profile's: one of kProfilePrecisions (models/model.hpp)
  std::string gradients = "fp32";  // what gradients are allreduced in: one of kGradientPrecisions
  GradientFusion fusion;  // $.fusion, or $.bucket_bytes alone: the size policy
  bool overlapBackward = true;
  // $.parallelism: how each GPU holds the model and which collectives an iteration runs
  // (algorithms/training/iteration_steps.hpp). Sharded, each algorithm entry names the reduce-scatter and
  // all-gather algorithms of that name.
  Parallelism parallelism = Parallelism::Ddp;
  IterationEffects effects;  // $.effects: all off unless the file asks
  // The effects $.effects gives as "sourced": their table values, central here, drawn from their priors by
  // ddlsim --samples (sampleEffects).
  std::vector<const EffectDeclaration*> sourcedEffects;
  std::vector<int> gpuCounts;
  // What efficiency is measured against: the iteration at this many GPUs (1: one GPU alone, no
  // communication). Goyal et al. measure against one 8-GPU server. Each algorithm's options must be
  // defined at this count; it need not be one of gpuCounts.
  int baselineGpus = 1;
  Placement placement = Placement::Packed;
  std::vector<ScenarioAlgorithm> algorithms;
  std::vector<PublishedPoint> published;  // optional

  // The GPU counts a sweep simulates: gpuCounts, and the baseline's after them where gpuCounts does not list it.
  std::vector<int> simulatedGpuCounts() const;

  // Whether $.effects gives `effect` as "sourced".
  bool sourced(const EffectDeclaration& effect) const;

  // The plan every GPU of every point follows, its compute times multiplied by `computeScale`.
  IterationPlan iterationPlan(double computeScale = 1) const;
  // The options of `algorithm` at `gpus` GPUs, already validated (none for "auto" and "nccl").
  AlgorithmOptions optionsFor(const ScenarioAlgorithm& algorithm, int gpus) const;
  // "auto" at `gpus` GPUs: its tuning table of `kind`, checked to be one of that collective at that count on
  // this topology, in the gradients' element size; InvalidArgument naming $.algorithms[i].tuning otherwise.
  TuningTable tuningTableFor(const ScenarioAlgorithm& algorithm, int gpus, CollectiveKind kind = CollectiveKind::Allreduce) const;
  // What allreduces each bucket of `plan` at `gpus` GPUs: the entry's algorithm for all, or for "auto" the
  // tuning table's choice at each bucket's size, each checked to fit its bucket.
  BucketAlgorithms bucketAlgorithms(const ScenarioAlgorithm& algorithm, int gpus, const IterationPlan& plan) const;
  // Under a sharded parallelism, what runs each bucket's collective of each kind (collectiveKindsOf's order):
  // the algorithms of the entry's name for every bucket, or for "auto" each kind's table's choice and for
  // "nccl" NCCL's at each bucket's size (padded to the GPUs, as the plan pads it), each checked to fit its bucket.
  std::vector<BucketAlgorithms> shardedBucketAlgorithms(const ScenarioAlgorithm& algorithm, int gpus, const IterationPlan& plan) const;
  // "nccl": each bucket's collective of `kind` as NCCL's tuning model would run it under Simple;
  // InvalidArgument naming $.algorithms[i].name where the GPUs leave a node part full.
  BucketAlgorithms ncclBucketAlgorithms(const ScenarioAlgorithm& algorithm, int gpus, const IterationPlan& plan,
                                        CollectiveKind kind) const;
  // What the point of `algorithm` at `gpus` GPUs is called ("ddl 4x16x4", "auto"): two entries may meet at some
  // GPU counts, and each point is simulated and measured once.
  std::string labelFor(const ScenarioAlgorithm& algorithm, int gpus) const;
  // Whether an earlier entry of `algorithms` comes to the same point at `gpus` GPUs as entry `index`.
  bool repeatsAnEarlierEntry(std::size_t index, int gpus) const;
};

// What an algorithm's options are derived from (a scenario's "topology" and "node", ddlsim tune's
// candidates): `topology` at `gpus` GPUs.
ClusterShape clusterShapeOf(const Topology& topology, int gpus);
// The same of a cluster already built (its topology at its ranks), whose node routes it reuses.
ClusterShape clusterShapeOf(const Cluster& cluster);

// Results of a scenario from `source` ("ddlsim", "ddlrun"), with no points yet.
ScalingResults emptyResults(const Scenario& scenario, const std::string& source);

// Throws InvalidArgument naming the file and JSON path of anything wrong, including an algorithm shape
// that does not fit one of the GPU counts.
Scenario loadScenario(const std::string& path);
// The same from a parsed document; `path` names it in errors and anchors relative topology and model paths.
Scenario scenarioFromJson(const nlohmann::json& json, const std::string& path);

}  // namespace ddl
