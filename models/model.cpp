#include "models/model.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common/json_reader.hpp"
#include "common/nearest_name.hpp"

namespace ddl {
namespace {

// A profile's forward_s, backward_s (one per tensor) and optimizer_s: all three or none, adding up to its
// iteration_s.
std::optional<MeasuredBreakdown> measuredBreakdown(const JsonReader& p, const nlohmann::json& profile, std::size_t tensors,
                                                   double iterationSeconds) {
  const int given = p.has(profile, "forward_s") + p.has(profile, "backward_s") + p.has(profile, "optimizer_s");
  if (given == 0) return std::nullopt;
  if (given != 3) p.fail("a measured breakdown needs forward_s, backward_s and optimizer_s together");
  MeasuredBreakdown breakdown;
  breakdown.forwardSeconds = p.numberAt(profile, "forward_s", 0, 1e6);
  breakdown.optimizerSeconds = p.numberAt(profile, "optimizer_s", 0, 1e6);
  const JsonReader backward = p.at("backward_s");
  const auto& list = backward.array(p.member(profile, "backward_s"));
  if (list.size() != tensors)
    backward.fail(std::to_string(list.size()) + " times for " + std::to_string(tensors) + " gradient tensors: one per tensor, in backprop order");
  double total = breakdown.forwardSeconds + breakdown.optimizerSeconds;
  for (std::size_t i = 0; i < list.size(); ++i) {
    breakdown.backwardSeconds.push_back(backward.at(i).number(list[i], 0, 1e6));
    total += breakdown.backwardSeconds.back();
  }
  if (!phasesMakeTheIteration(total, iterationSeconds))
    p.at("iteration_s").fail(std::to_string(iterationSeconds) + ", but forward_s, backward_s and optimizer_s add up to " +
                             std::to_string(total));
  return breakdown;
}

// The name a model's FLOPs go by: per sequence in a model of sequences, per image otherwise.
const char* flopsField(bool sequences, bool forward) {
  if (forward) return sequences ? "forward_flops_per_sequence" : "forward_flops_per_image";
  return sequences ? "backward_flops_per_sequence" : "backward_flops_per_image";
}

}  // namespace

double optimizerBytesPerParameter(ModelOptimizer optimizer) {
  return optimizer == ModelOptimizer::Adam ? 7.0 * 4 : 5.0 * 4;
}

ModelStateBytes modelStateBytes(ModelOptimizer optimizer) {
  // Adam in mixed precision: 16-bit weights and gradients, fp32 master weights and two moments. SGD with
  // momentum in fp32: weights, gradients, momentum.
  return optimizer == ModelOptimizer::Adam ? ModelStateBytes{2, 2, 12} : ModelStateBytes{4, 4, 4};
}

double modelStateBytesPerParameter(ModelOptimizer optimizer) { return modelStateBytes(optimizer).total(); }

Model Model::load(const std::string& path) { return fromJson(readJsonFile(path), path); }

Model Model::fromJson(const nlohmann::json& json, const std::string& path) {
  const JsonReader root(path);
  root.allowOnly(json, {"name", "gradients", "gpus", "parameters", "forward_flops_per_image", "forward_flops_per_sequence",
                        "sequence_length", "optimizer"});
  Model model;
  model.path_ = path;
  model.name_ = root.stringAt(json, "name");
  if (root.has(json, "sequence_length")) model.sequenceLength_ = static_cast<int>(root.integerAt(json, "sequence_length", 1, 1 << 24));
  // A sample is an image, or a sequence where the model says how long: FLOPs are counted per sample, under
  // the name that says which, and the other name is refused rather than read as the wrong unit.
  const bool sequences = model.sequenceLength_ > 0;
  const auto refuseOtherUnit = [&](const JsonReader& at, const nlohmann::json& object, bool forward) {
    const char* other = flopsField(!sequences, forward);
    const char* own = flopsField(sequences, forward);
    if (at.has(object, other))
      at.at(other).fail(sequences ? std::string("the model has a sequence_length, so its FLOPs are per sequence: ") + own
                                  : std::string("a model without sequence_length counts FLOPs per image: ") + own);
  };
  refuseOtherUnit(root, json, true);
  if (root.has(json, "optimizer")) {
    const std::string optimizer = root.stringAt(json, "optimizer");
    if (optimizer == "adam") model.optimizer_ = ModelOptimizer::Adam;
    else if (optimizer != "sgd-momentum")
      root.at("optimizer").fail("'" + optimizer + "' is no optimizer a model may step with: " + listOfNames(kModelOptimizerNames) +
                                didYouMean(optimizer, kModelOptimizerNames));
  }
  const JsonReader gradients = root.at("gradients");
  const auto& list = gradients.array(root.member(json, "gradients"));
  if (list.empty()) gradients.fail("a model needs at least one gradient tensor");
  double backwardFlops = 0;
  long long elements = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonReader tensor = gradients.at(i);
    refuseOtherUnit(tensor, list[i], false);
    const char* const backwardField = flopsField(sequences, false);
    tensor.allowOnly(list[i], {"name", "elements", backwardField});
    // An imported model's tensors have measured times instead of FLOPs (checkWhatTheSplitNeeds).
    const double flops = tensor.has(list[i], backwardField) ? tensor.numberAt(list[i], backwardField, 0, 1e18) : 0;
    model.tensors_.push_back({tensor.stringAt(list[i], "name"), tensor.integerAt(list[i], "elements", 1, 1LL << 40), flops});
    backwardFlops += model.tensors_.back().backwardFlopsPerSample;
    elements += model.tensors_.back().elements;
    if (elements > (1LL << 40)) tensor.at("elements").fail("the gradients add up to more than 2^40 elements");
  }
  if (root.has(json, "parameters") && root.integerAt(json, "parameters", 1, 1LL << 40) != elements)
    root.at("parameters").fail(std::to_string(root.integerAt(json, "parameters", 1, 1LL << 40)) +
                               ", but the gradients add up to " + std::to_string(elements) + " elements");
  if (root.has(json, flopsField(sequences, true))) root.numberAt(json, flopsField(sequences, true), 0, 1e18);
  const JsonReader gpus = root.at("gpus");
  for (const auto& [gpu, entry] : gpus.object(root.member(json, "gpus")).items()) {
    const JsonReader gpuReader = gpus.at(gpu);
    gpuReader.allowOnly(entry, {"memory", "profiles"});
    if (gpuReader.has(entry, "memory")) {
      const JsonReader memory = gpuReader.at("memory");
      memory.allowOnly(gpuReader.member(entry, "memory"), {"bandwidth_Bps"});
      model.memory_.push_back({gpu, memory.numberAt(gpuReader.member(entry, "memory"), "bandwidth_Bps", 1e6, 1e15)});
    }
    const JsonReader profiles = gpuReader.at("profiles");
    for (const auto& [key, profile] : profiles.object(gpuReader.member(entry, "profiles")).items()) {
      const JsonReader p = profiles.at(key);
      p.allowOnly(profile, {"batch", "iteration_s", "forward_s", "backward_s", "optimizer_s"});
      const int batch = static_cast<int>(p.integerAt(profile, "batch", 1, 1 << 20));
      const std::string precision = key.substr(0, key.find('-'));
      if (std::find(std::begin(kProfilePrecisions), std::end(kProfilePrecisions), precision) == std::end(kProfilePrecisions) ||
          key.find('-') == std::string::npos)
        p.fail("profile keys are PRECISION-BATCH, PRECISION one of " + listOfNames(kProfilePrecisions) +
               " (fp32-32: fp32 at batch 32)" + didYouMean(precision, kProfilePrecisions));
      if (key != precision + "-" + std::to_string(batch))
        p.at("batch").fail(std::to_string(batch) + ", but the key '" + key + "' names batch " + key.substr(precision.size() + 1));
      // The key names precision and batch, and no object holds a key twice (readJsonFile refuses it): so no
      // two profiles of one GPU have the same precision and batch.
      model.profiles_.push_back(
          {gpu, key, precision, batch, p.numberAt(profile, "iteration_s", 1e-9, 1e6), p.stringAt(profile, "source"), {}});
      model.profiles_.back().breakdown = measuredBreakdown(p, profile, model.tensors_.size(), model.profiles_.back().iterationSeconds);
    }
  }
  model.checkWhatTheSplitNeeds(root, backwardFlops);
  return model;
}

void Model::checkWhatTheSplitNeeds(const JsonReader& root, double backwardFlops) const {
  for (const ModelProfile& profile : profiles_) {
    if (profile.breakdown) continue;
    const JsonReader at = root.at("gpus").at(profile.gpu);
    // The backward pass is split among the tensors in proportion to their FLOPs: some must have some.
    if (backwardFlops <= 0)
      root.at("gradients").fail(std::string("every tensor's ") + flopsField(sequenceLength_ > 0, false) +
                                " is 0 or absent, and profile " + profile.gpu + " " +
                                profile.key + " has no measured breakdown (forward_s, backward_s, optimizer_s) to take "
                                "instead: at least one must be positive to split its backward time");
    if (std::none_of(memory_.begin(), memory_.end(), [&](const Memory& memory) { return memory.gpu == profile.gpu; }))
      at.fail("no memory bandwidth for the optimizer step of profile '" + profile.key + "', which has no measured optimizer_s");
  }
}

long long Model::parameters() const {
  long long total = 0;
  for (const Tensor& tensor : tensors_) total += tensor.elements;
  return total;
}

double Model::optimizerSeconds(const std::string& gpu) const {
  for (const Memory& memory : memory_)
    if (memory.gpu == gpu) return optimizerBytesPerParameter(optimizer_) * static_cast<double>(parameters()) / memory.bandwidthBps;
  throw InvalidArgument(path_ + ": $.gpus", "no entry for GPU '" + gpu + "'");
}

TrainingWorkload Model::workload(const std::string& gpu, int batch, const std::string& precision) const {
  const ModelProfile* chosen = nullptr;
  std::string available;
  for (const ModelProfile& profile : profiles_) {
    if (profile.gpu == gpu && profile.batch == batch && profile.precision == precision) chosen = &profile;
    available += (available.empty() ? "" : ", ") + profile.gpu + " " + profile.precision + " at batch " + std::to_string(profile.batch);
  }
  if (!chosen)
    throw InvalidArgument(path_ + ": $.gpus", "no " + precision + " profile for " + gpu + " at batch " + std::to_string(batch) +
                                                  "; there are: " + available);
  TrainingWorkload workload;
  workload.model = name_;
  workload.gpu = gpu;
  workload.batchPerGpu = batch;
  workload.computePrecision = precision;
  if (chosen->breakdown) {
    workload.forwardSeconds = chosen->breakdown->forwardSeconds;
    workload.optimizerSeconds = chosen->breakdown->optimizerSeconds;
    for (std::size_t i = 0; i < tensors_.size(); ++i)
      workload.gradients.push_back({tensors_[i].name, tensors_[i].elements, chosen->breakdown->backwardSeconds[i]});
    return workload;
  }
  workload.optimizerSeconds = optimizerSeconds(gpu);
  const double computeSeconds = chosen->iterationSeconds - workload.optimizerSeconds;
  if (computeSeconds <= 0)
    throw InvalidArgument(path_ + ": $.gpus." + gpu, "the optimizer step alone takes longer than the iteration");
  workload.forwardSeconds = computeSeconds / 3;
  double backwardFlops = 0;
  for (const Tensor& tensor : tensors_) backwardFlops += tensor.backwardFlopsPerSample;
  for (const Tensor& tensor : tensors_)
    workload.gradients.push_back(
        {tensor.name, tensor.elements, computeSeconds * 2 / 3 * tensor.backwardFlopsPerSample / backwardFlops});
  return workload;
}

}  // namespace ddl
