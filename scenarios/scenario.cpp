#include "scenarios/scenario.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/training/iteration_steps.hpp"
#include "common/data_files.hpp"
#include "common/input_file.hpp"
#include "common/json_reader.hpp"
#include "common/nearest_name.hpp"
#include "common/number_text.hpp"
#include "scenarios/scenario_algorithms.hpp"
#include "scenarios/scenario_effects.hpp"

namespace ddl {
namespace {

// A grid per GPU count: {"256": "4x16x4", ...}.
std::vector<std::pair<int, OptionValue>> readGridsByGpus(const JsonReader& reader, const nlohmann::json& value) {
  std::vector<std::pair<int, OptionValue>> grids;
  for (const auto& [gpus, grid] : reader.object(value).items()) {
    const JsonReader entry = reader.at(gpus);
    int count = 0;
    const auto [end, error] = std::from_chars(gpus.data(), gpus.data() + gpus.size(), count);
    if (gpus.empty() || error != std::errc() || end != gpus.data() + gpus.size() || count < 1 || count > kMaxRanks)
      entry.fail("keys are GPU counts, 1 to " + std::to_string(kMaxRanks));
    for (const auto& [earlier, unused] : grids)
      if (earlier == count) entry.fail("a second grid for " + std::to_string(count) + " GPUs");
    try {
      grids.push_back({count, parseDims(entry.string(grid))});
    } catch (const InvalidArgument& error) {
      entry.fail(error.what());
    }
  }
  return grids;
}

ScenarioOption readOption(const JsonReader& reader, const nlohmann::json& value, const OptionDeclaration& declaration) {
  ScenarioOption option;
  option.declaration = &declaration;
  if (!declaration.derivedBy.empty() && value.is_string() && value == declaration.derivedBy) {
    option.derived = true;
    return option;
  }
  // A string that is not the derivation's name is refused with that name, which the integer's message would hide.
  if (!declaration.derivedBy.empty() && value.is_string() && declaration.type != OptionType::Grid &&
      declaration.type != OptionType::AlgorithmName)
    reader.fail("'" + value.get<std::string>() + "' is neither a number nor \"" + std::string(declaration.derivedBy) + "\"");
  switch (declaration.type) {
    case OptionType::Grid: option.byGpus = readGridsByGpus(reader, value); break;
    case OptionType::Count:
    case OptionType::Bytes: option.value = reader.integer(value, declaration.minimum, declaration.maximum); break;
    case OptionType::AlgorithmName: option.value = reader.string(value); break;
  }
  return option;
}

// $.precision, the compute profile's (default fp32), and $.gradients, the element type gradients are
// allreduced in: by default what the compute precision keeps them in (fp32 for fp32, tf32 and mixed
// precision, whose master gradients are fp32; bf16 and fp16 for those).
void readPrecisions(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  auto oneOf = [&](const char* key, std::span<const std::string_view> known) {
    const std::string value = root.stringAt(json, key);
    if (std::find(known.begin(), known.end(), value) == known.end())
      root.at(key).fail("'" + value + "' is not one of " + listOfNames(known) + didYouMean(value, known));
    return value;
  };
  if (root.has(json, "precision")) scenario.precision = oneOf("precision", kProfilePrecisions);
  const bool narrow = scenario.precision == "bf16" || scenario.precision == "fp16";
  scenario.gradients = root.has(json, "gradients") ? oneOf("gradients", kGradientPrecisions)
                                                   : (narrow ? scenario.precision : std::string("fp32"));
}

// $.fusion, {"policy": ..., and the policy's own sizes}, or $.bucket_bytes alone (the size policy).
void readFusion(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  constexpr std::int64_t kMaxBucketBytes = 1LL << 40;
  if (!root.has(json, "fusion")) {
    if (root.has(json, "bucket_bytes")) scenario.fusion.bucketBytes = root.integerAt(json, "bucket_bytes", 1, kMaxBucketBytes);
    return;
  }
  const JsonReader reader = root.at("fusion");
  if (root.has(json, "bucket_bytes")) reader.fail("give bucket_bytes inside $.fusion, not beside it");
  const auto& fusion = reader.object(json["fusion"]);
  const std::string policy = reader.stringAt(fusion, "policy");
  const std::optional<FusionPolicy> named = fusionPolicyNamed(policy);
  if (!named)
    reader.at("policy").fail("'" + policy + "' is not one of " + listOfNames(kFusionPolicyNames) +
                             didYouMean(policy, kFusionPolicyNames));
  GradientFusion& chosen = scenario.fusion;
  chosen.policy = *named;
  switch (chosen.policy) {
    case FusionPolicy::Size:
      reader.allowOnly(fusion, {"policy", "bucket_bytes"});
      break;
    case FusionPolicy::Ddp:
      reader.allowOnly(fusion, {"policy", "bucket_bytes", "first_bucket_bytes"});
      if (reader.has(fusion, "first_bucket_bytes")) chosen.firstBucketBytes = reader.integerAt(fusion, "first_bucket_bytes", 1, kMaxBucketBytes);
      break;
    case FusionPolicy::Horovod:
      chosen.bucketBytes = kHorovodFusionThresholdBytes;
      reader.allowOnly(fusion, {"policy", "bucket_bytes", "cycle_time_s"});
      if (reader.has(fusion, "cycle_time_s")) chosen.cycleSeconds = reader.numberAt(fusion, "cycle_time_s", 1e-6, 10);
      break;
    case FusionPolicy::PerLayer:
      reader.allowOnly(fusion, {"policy"});
      break;
  }
  if (reader.has(fusion, "bucket_bytes")) chosen.bucketBytes = reader.integerAt(fusion, "bucket_bytes", 1, kMaxBucketBytes);
}

ScenarioAlgorithm readAlgorithm(const JsonReader& reader, const nlohmann::json& json) {
  ScenarioAlgorithm algorithm;
  algorithm.path = reader.path();
  algorithm.name = reader.stringAt(json, "name");
  if (algorithm.tuned()) {
    // Its tables give the options too.
    reader.allowOnly(json, {"name", "tuning"});
    algorithm.tuning = reader.stringAt(json, "tuning");
    if (algorithm.tuning.empty()) reader.at("tuning").fail("give the tuning table's file, with {gpus} for the GPU count");
    return algorithm;
  }
  if (algorithm.ncclChosen()) {
    reader.allowOnly(json, {"name", "nvls"});  // NCCL's model gives each bucket's options
    if (reader.has(json, "nvls")) {
      if (!json["nvls"].is_boolean()) reader.at("nvls").fail("expected true or false (false: NCCL_NVLS_ENABLE=0)");
      algorithm.nvls = json["nvls"].get<bool>();
    }
    return algorithm;
  }
  std::vector<std::string_view> fields{"name"};
  for (const OptionDeclaration& declaration : algorithmOptionTable()) fields.push_back(declaration.key);
  reader.allowOnly(json, fields);
  // An unknown name fails here, not mid-sweep.
  try {
    findAlgorithm(CollectiveKind::Allreduce, algorithm.name);
  } catch (const InvalidArgument& error) {
    reader.at("name").fail(error.message() + ", or auto (chosen per bucket from tuning tables), or nccl (chosen per "
                                             "bucket as NCCL's tuning model would)");
  }
  for (const OptionDeclaration& declaration : algorithmOptionTable()) {
    const std::string key(declaration.key);
    if (reader.has(json, key)) algorithm.options.push_back(readOption(reader.at(key), json[key], declaration));
  }
  return algorithm;
}

void readTopology(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  const std::string& path = scenario.path;
  TopologyOverrides overrides;
  if (root.has(json, "topology_overrides")) {
    const JsonReader reader = root.at("topology_overrides");
    const auto& value = json["topology_overrides"];
    reader.allowOnly(value, {"nics_per_node", "nodes_per_leaf", "oversubscription", "gpus_per_node"});
    if (reader.has(value, "nics_per_node")) overrides.nicsPerNode = static_cast<int>(reader.integerAt(value, "nics_per_node", 1, 64));
    overrides.nicsPerNodeField = path + ": $.topology_overrides.nics_per_node";
    if (reader.has(value, "nodes_per_leaf")) overrides.nodesPerLeaf = static_cast<int>(reader.integerAt(value, "nodes_per_leaf", 1, 1 << 20));
    if (reader.has(value, "oversubscription")) overrides.oversubscription = reader.numberAt(value, "oversubscription", 1, 1000);
    if (reader.has(value, "gpus_per_node")) overrides.gpusPerNode = static_cast<int>(reader.integerAt(value, "gpus_per_node", 1, 1024));
    overrides.gpusPerNodeField = path + ": $.topology_overrides.gpus_per_node";
  }
  scenario.topology = loadTopology(
      findDataFile("topologies", root.stringAt(json, "topology"), path, path + ": $.topology"), overrides);
}

// A sequence model's profiles are measured at its sequence length, and nothing scales them to another: a
// scenario states the length it means (its batch counts sequences of it), which must be the model's, and a
// model of images takes none.
void readSequenceLength(const JsonReader& root, const nlohmann::json& json, const Model& model) {
  const int modelLength = model.sequenceLength();
  if (!root.has(json, "sequence_length")) {
    if (modelLength > 0)
      root.fail("model '" + model.name() + "' trains on sequences of " + std::to_string(modelLength) +
                " tokens: give \"sequence_length\": " + std::to_string(modelLength) + ", so that batch_per_gpu counts sequences of it");
    return;
  }
  const int length = static_cast<int>(root.integerAt(json, "sequence_length", 1, 1 << 24));
  if (modelLength == 0)
    root.at("sequence_length").fail("model '" + model.name() + "' trains on images, not sequences: leave sequence_length out");
  if (length != modelLength)
    root.at("sequence_length").fail(std::to_string(length) + ", but model '" + model.name() + "' is profiled at sequences of " +
                                    std::to_string(modelLength) + " tokens only (" + model.path() + "), and compute times are not scaled "
                                    "to another length");
}

// The model, the GPU whose profile it runs and the batch: a profile must exist for them.
void readModel(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  scenario.model = Model::load(findDataFile("models", root.stringAt(json, "model"), scenario.path, scenario.path + ": $.model"));
  readSequenceLength(root, json, scenario.model);
  scenario.gpu = root.stringAt(json, "gpu");
  scenario.batchPerGpu = static_cast<int>(root.integerAt(json, "batch_per_gpu", 1, 1 << 20));
  readPrecisions(root, json, scenario);
  try {
    scenario.model.workload(scenario.gpu, scenario.batchPerGpu, scenario.precision);
  } catch (const InvalidArgument& error) {
    // The GPU is at fault where the model has no profile of it; the precision where none of it at any
    // batch (if the scenario names one); else the batch.
    bool gpuProfiled = false;
    bool precisionProfiled = false;
    for (const ModelProfile& profile : scenario.model.profiles()) {
      gpuProfiled = gpuProfiled || profile.gpu == scenario.gpu;
      precisionProfiled = precisionProfiled || (profile.gpu == scenario.gpu && profile.precision == scenario.precision);
    }
    const char* field = !gpuProfiled ? "gpu" : !precisionProfiled && root.has(json, "precision") ? "precision" : "batch_per_gpu";
    root.at(field).fail(error.what());
  }
}

// The parallelism, default ddp. A sharded one fills its buckets (its units) by a byte threshold and
// overlaps its collectives with backward, as DeepSpeed and FSDP do: no Horovod cycles, no overlap off.
void readParallelism(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  if (!root.has(json, "parallelism")) return;
  const std::string name = root.stringAt(json, "parallelism");
  const std::optional<Parallelism> parallelism = parallelismNamed(name);
  if (!parallelism)
    root.at("parallelism").fail("'" + name + "' is not one of " + listOfNames(kParallelismNames) + didYouMean(name, kParallelismNames));
  scenario.parallelism = *parallelism;
  if (!isSharded(*parallelism)) return;
  if (scenario.fusion.policy == FusionPolicy::Horovod)
    root.at("parallelism").fail(name + " fills its buckets by size, not on Horovod's cycles: give fusion policy size, ddp or per-layer");
  if (!scenario.overlapBackward)
    root.at("parallelism").fail(name + " overlaps its collectives with backward: overlap_backward must not be false");
}

// Hybrid shards within each node: consecutive ranks must share one (packed), and fill whole nodes.
// Where the scenario asks for `gpus` GPUs, to name in an error: $.gpus[i], or $.baseline_gpus for a baseline
// it does not list.
JsonReader gpuCountField(const JsonReader& root, const Scenario& scenario, int gpus) {
  const auto listed = std::find(scenario.gpuCounts.begin(), scenario.gpuCounts.end(), gpus);
  if (listed == scenario.gpuCounts.end()) return root.at("baseline_gpus");
  return root.at("gpus").at(static_cast<std::size_t>(listed - scenario.gpuCounts.begin()));
}

void requireWholeNodesForHybrid(const JsonReader& root, const Scenario& scenario) {
  if (scenario.parallelism != Parallelism::Hybrid) return;
  if (scenario.placement != Placement::Packed)
    root.at("parallelism").fail("hybrid shards within each node, over consecutive ranks: placement must be packed");
  const int perNode = scenario.topology.node.gpus;
  for (const int gpus : scenario.simulatedGpuCounts())
    if (gpus % shardingRanks(scenario.parallelism, gpus, perNode) != 0)
      gpuCountField(root, scenario, gpus)
          .fail("hybrid shards within nodes of " + std::to_string(perNode) + " GPUs: " + std::to_string(gpus) + " GPUs leave a node part full");
}

// What each GPU keeps of the model's states (activations not counted) must fit its memory at every GPU
// count simulated: ddp keeps them all everywhere, a sharded plan a share that shrinks with the GPUs.
void requireTheModelFits(const JsonReader& root, const Scenario& scenario) {
  const double memory = scenario.topology.node.gpuMemoryBytes;
  if (memory <= 0) return;
  const ModelStateBytes perParameter = modelStateBytes(scenario.model.optimizer());
  const long long parameters = scenario.model.parameters();
  const char* optimizer = scenario.model.optimizer() == ModelOptimizer::Adam ? "Adam's" : "SGD momentum's";
  char message[600];
  if (scenario.parallelism == Parallelism::Ddp) {
    const double states = perParameter.total() * static_cast<double>(parameters);
    if (states <= memory) return;
    std::snprintf(message, sizeof message,
                  "%s needs %.1f GB per GPU for its model states alone (%lld parameters x %.0f bytes: weights, gradients and "
                  "%s state, every GPU holding all of them as DDP does), more than the %.1f GB of each %s in topology %s",
                  scenario.model.name().c_str(), states / 1e9, parameters, perParameter.total(), optimizer, memory / 1e9,
                  scenario.topology.node.gpuModel.c_str(), scenario.topology.name.c_str());
    root.at("model").fail(message);
  }
  Elements largestUnit = 0;
  const IterationPlan plan = scenario.iterationPlan();
  for (const GradientBucket& bucket : plan.buckets()) largestUnit = std::max(largestUnit, bucket.elements.count);
  for (const int gpus : scenario.simulatedGpuCounts()) {
    const int shardRanks = shardingRanks(scenario.parallelism, gpus, scenario.topology.node.gpus);
    const double states = modelStateBytesPerGpu(scenario.parallelism, perParameter, parameters, shardRanks, largestUnit);
    if (states <= memory) continue;
    std::snprintf(message, sizeof message,
                  "%s under %s needs %.1f GB per GPU at %d GPUs for its model states alone (%lld parameters x %.0f + %.0f + %.0f "
                  "bytes of weights, gradients and %s state, sharded as %s shards them%s), more than the %.1f GB of each %s in "
                  "topology %s",
                  scenario.model.name().c_str(), parallelismName(scenario.parallelism), states / 1e9, gpus, parameters,
                  perParameter.weights, perParameter.gradients, perParameter.optimizer, optimizer, parallelismName(scenario.parallelism),
                  shardsParameters(scenario.parallelism) ? ", and two units gathered" : "", memory / 1e9,
                  scenario.topology.node.gpuModel.c_str(), scenario.topology.name.c_str());
    gpuCountField(root, scenario, gpus).fail(message);
  }
}

void readGpuCounts(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  const JsonReader gpus = root.at("gpus");
  const auto& counts = gpus.array(root.member(json, "gpus"));
  if (counts.empty()) gpus.fail("give at least one GPU count");
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const int count = static_cast<int>(gpus.at(i).integer(counts[i], 1, kMaxRanks));
    // The same count twice would give the same points twice, which no results file may hold.
    if (std::find(scenario.gpuCounts.begin(), scenario.gpuCounts.end(), count) != scenario.gpuCounts.end())
      gpus.at(i).fail(std::to_string(count) + " GPUs are listed twice");
    scenario.gpuCounts.push_back(count);
  }
  if (root.has(json, "baseline_gpus")) scenario.baselineGpus = static_cast<int>(root.integerAt(json, "baseline_gpus", 1, kMaxRanks));
}

void readPlacement(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  if (!root.has(json, "placement")) return;
  const std::string placement = root.stringAt(json, "placement");
  if (placement == "packed") {
    scenario.placement = Placement::Packed;
  } else if (placement == "round-robin") {
    scenario.placement = Placement::RoundRobin;
  } else {
    root.at("placement").fail("'" + placement + "' is not packed or round-robin");
  }
}

void readPublished(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  if (!root.has(json, "published")) return;
  const JsonReader published = root.at("published");
  const auto& entries = published.array(json["published"]);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const JsonReader reader = published.at(i);
    const auto& entry = reader.object(entries[i]);
    reader.allowOnly(entry, {"gpus", "efficiency", "images_per_s", "label", "source"});
    PublishedPoint point;
    point.gpus = static_cast<int>(reader.integerAt(entry, "gpus", 1, kMaxRanks));
    point.efficiency = reader.numberAt(entry, "efficiency", 0, 1.5);
    if (reader.has(entry, "images_per_s")) point.imagesPerSecond = reader.numberAt(entry, "images_per_s", 0, 1e12);
    point.label = reader.stringAt(entry, "label");
    point.source = reader.stringAt(entry, "source");
    scenario.published.push_back(point);
  }
}

void readAlgorithms(const JsonReader& root, const nlohmann::json& json, Scenario& scenario) {
  const JsonReader algorithms = root.at("algorithms");
  const auto& list = algorithms.array(root.member(json, "algorithms"));
  if (list.empty()) algorithms.fail("give at least one algorithm");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonReader reader = algorithms.at(i);
    try {
      scenario.algorithms.push_back(readAlgorithm(reader, list[i]));
    } catch (const InvalidArgument& error) {
      if (error.field().rfind(scenario.path, 0) == 0) throw;
      reader.at("name").fail(error.what());
    }
  }
}

// An entry that comes to the same configuration as an earlier one at every GPU count is a slip (the same
// algorithm twice). Entries that meet at some counts only (a grid from the topology and one by hand, both
// "ddl 1" at 1 GPU) are fine: the sweep simulates such a point once.
void requireDistinctEntries(const JsonReader& root, const Scenario& scenario) {
  std::vector<std::vector<std::string>> labels(scenario.algorithms.size());
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a) {
    for (int count : scenario.gpuCounts) labels[a].push_back(scenario.labelFor(scenario.algorithms[a], count));
    for (std::size_t earlier = 0; earlier < a; ++earlier)
      if (labels[earlier] == labels[a])
        root.at("algorithms").at(a).fail("at every GPU count this is the same configuration as $.algorithms[" +
                                         std::to_string(earlier) + "] ('" + labels[a].back() + "' at " +
                                         std::to_string(scenario.gpuCounts.back()) + " GPUs)");
  }
}

// Whether the baseline is a count $.gpus does not list: simulated all the same, and errors about it name
// $.baseline_gpus.
bool unlistedBaseline(const Scenario& scenario) { return scenario.simulatedGpuCounts().size() > scenario.gpuCounts.size(); }

// "$.algorithms[0].dims: no grid given for 6 GPUs", without the file.
std::string withinTheFile(const Scenario& scenario, const InvalidArgument& error) {
  const std::string& field = error.field();
  const std::string prefix = scenario.path + ": ";
  return (field.rfind(prefix, 0) == 0 ? field.substr(prefix.size()) : field) + ": " + error.message();
}

// An unlisted baseline must be a point the cluster and every algorithm can have.
void requireBaselineRuns(const JsonReader& root, const Scenario& scenario) {
  if (!unlistedBaseline(scenario)) return;
  const JsonReader baseline = root.at("baseline_gpus");
  try {
    Cluster(scenario.topology, scenario.baselineGpus, scenario.placement);
  } catch (const InvalidArgument& error) {
    baseline.fail(std::to_string(scenario.baselineGpus) + " GPUs: " + withinTheFile(scenario, error));
  }
  for (const ScenarioAlgorithm& algorithm : scenario.algorithms) {
    try {
      scenario.optionsFor(algorithm, scenario.baselineGpus);
    } catch (const InvalidArgument& error) {
      baseline.fail(std::to_string(scenario.baselineGpus) + " GPUs, where " + algorithm.name + " cannot run: " +
                    withinTheFile(scenario, error));
    }
  }
}

// Options that fit the rank counts must fit the buckets too (a chunk size that would cut the largest
// bucket into more steps than a program may have); "auto"'s tables must be there and fit every point.
void requireOptionsFitBuckets(const JsonReader& root, const Scenario& scenario) {
  Elements largestBucket = 0;
  const IterationPlan plan = scenario.iterationPlan();
  const int elementBytes = plan.workload().elementBytes;
  for (const GradientBucket& bucket : plan.buckets()) largestBucket = std::max(largestBucket, bucket.elements.count);
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a)
    for (int count : scenario.simulatedGpuCounts()) {
      if (scenario.algorithms[a].choosesPerBucket()) {
        // A sharded plan's tables are its own kinds' (requireShardedAlgorithms).
        if (!isSharded(scenario.parallelism)) scenario.bucketAlgorithms(scenario.algorithms[a], count, plan);
        continue;
      }
      try {
        makeSchedule(findAlgorithm(CollectiveKind::Allreduce, scenario.algorithms[a].name),
                     {CollectiveKind::Allreduce, count, largestBucket, elementBytes},
                     scenario.optionsFor(scenario.algorithms[a], count));
      } catch (const InvalidArgument& error) {
        const std::string message = "with the largest bucket (" + std::to_string(elementBytes * largestBucket) + " bytes) at " +
                                    std::to_string(count) + " GPUs: ";
        if (unlistedBaseline(scenario) && count == scenario.baselineGpus)
          root.at("baseline_gpus").fail(message + scenario.algorithms[a].name + ": " + error.message());
        root.at("algorithms").at(a).fail(message + error.what());
      }
    }
}

// A grid for a GPU count the sweep does not visit is a slip (a count mistyped in one of the two places).
void requireGridsVisited(const JsonReader& root, const Scenario& scenario) {
  const std::vector<int> simulatedCounts = scenario.simulatedGpuCounts();
  for (std::size_t a = 0; a < scenario.algorithms.size(); ++a)
    for (const ScenarioOption& option : scenario.algorithms[a].options)
      for (const auto& [count, grid] : option.byGpus)
        if (std::find(simulatedCounts.begin(), simulatedCounts.end(), count) == simulatedCounts.end())
          root.at("algorithms").at(a).at(std::string(option.declaration->key)).at(std::to_string(count))
              .fail("a grid for " + std::to_string(count) + " GPUs, which neither $.gpus nor $.baseline_gpus lists");
}

}  // namespace

ScalingResults emptyResults(const Scenario& scenario, const std::string& source) {
  ScalingResults results;
  results.source = source;
  results.scenario = scenario.name;
  results.topology = scenario.topology.name;
  results.model = scenario.model.name();
  results.gpu = scenario.gpu;
  return results;
}

std::vector<int> Scenario::simulatedGpuCounts() const {
  std::vector<int> counts = gpuCounts;
  if (baselineGpus > 1 && std::find(counts.begin(), counts.end(), baselineGpus) == counts.end()) counts.push_back(baselineGpus);
  return counts;
}

IterationPlan Scenario::iterationPlan(double computeScale) const {
  TrainingWorkload workload = model.workload(gpu, batchPerGpu, precision).scaled(computeScale);
  workload.gradientPrecision = gradients;
  workload.elementBytes = gradientElementBytes(gradients);
  return IterationPlan(std::move(workload), fusion, overlapBackward);
}

bool Scenario::sourced(const EffectDeclaration& effect) const {
  return std::find(sourcedEffects.begin(), sourcedEffects.end(), &effect) != sourcedEffects.end();
}


std::string Scenario::labelFor(const ScenarioAlgorithm& algorithm, int gpus) const {
  if (algorithm.ncclChosen() && !algorithm.nvls) return algorithm.name + ", NVLS off";
  if (algorithm.choosesPerBucket()) return algorithm.name;
  return findAlgorithm(CollectiveKind::Allreduce, algorithm.name).description(optionsFor(algorithm, gpus));
}

bool Scenario::repeatsAnEarlierEntry(std::size_t index, int gpus) const {
  const std::string label = labelFor(algorithms.at(index), gpus);
  for (std::size_t earlier = 0; earlier < index; ++earlier)
    if (labelFor(algorithms[earlier], gpus) == label) return true;
  return false;
}

Scenario scenarioFromJson(const nlohmann::json& json, const std::string& path) {
  const JsonReader root(path);
  root.allowOnly(json, {"name", "topology", "topology_overrides", "model", "gpu", "batch_per_gpu", "bucket_bytes",
                        "overlap_backward", "gpus", "baseline_gpus", "placement", "algorithms", "published", "precision",
                        "gradients", "fusion", "effects", "sequence_length", "parallelism"});
  Scenario scenario;
  scenario.path = path;
  scenario.name = root.stringAt(json, "name");
  readTopology(root, json, scenario);
  readModel(root, json, scenario);
  readFusion(root, json, scenario);
  readScenarioEffects(root, json, scenario);
  if (root.has(json, "overlap_backward")) {
    const auto& overlap = json["overlap_backward"];
    if (!overlap.is_boolean()) root.at("overlap_backward").fail("expected true or false");
    scenario.overlapBackward = overlap.get<bool>();
  }
  readParallelism(root, json, scenario);
  readGpuCounts(root, json, scenario);
  requireTheModelFits(root, scenario);
  readPlacement(root, json, scenario);
  requireWholeNodesForHybrid(root, scenario);
  readPublished(root, json, scenario);
  readAlgorithms(root, json, scenario);
  requireShardedAlgorithms(root, scenario);
  requireDistinctEntries(root, scenario);
  requireBaselineRuns(root, scenario);
  requireOptionsFitBuckets(root, scenario);
  requireGridsVisited(root, scenario);
  return scenario;
}

}  // namespace ddl
