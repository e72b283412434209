#pragma once
// A model file (models/*.json): the gradient tensors in backprop order with their FLOPs, and measured
// single-GPU iteration times per GPU type and batch size. It yields the TrainingWorkload of one GPU.
//
// A sample is an image (the CNNs), or, in a model that declares a sequence_length (the transformers), a
// sequence of that many tokens: its FLOPs are then per sequence and its batches count sequences.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <string_view>

#include "algorithms/training/parallelism.hpp"
#include "algorithms/training/workload.hpp"

namespace ddl {

class JsonReader;

// The precisions a profile may be measured in: fp32; fp32 with TF32 matrix units; mixed precision (fp16
// compute, fp32 master weights); bf16; fp16. A profile's key is PRECISION-BATCH: "fp32-32", "amp-256".
inline constexpr std::string_view kProfilePrecisions[] = {"fp32", "tf32", "amp", "bf16", "fp16"};

// A profile's phases as measured (`ddlsim model import` of a PyTorch run): what a workload takes as they are,
// instead of splitting the iteration by the assumptions of Model::workload.
struct MeasuredBreakdown {
  double forwardSeconds = 0;
  std::vector<double> backwardSeconds;  // per gradient tensor, in backprop order: from the previous one's to its own
  double optimizerSeconds = 0;
};

// Whether measured phases adding up to `phasesSeconds` make an iteration of `iterationSeconds`: to a part in a
// million, since both are written rounded.
inline bool phasesMakeTheIteration(double phasesSeconds, double iterationSeconds) {
  return std::abs(phasesSeconds - iterationSeconds) <= 1e-6 * iterationSeconds;
}

// The optimizer whose step the model's profiles include, and which a workload without a measured breakdown
// charges at the GPU's memory bandwidth: the bytes of fp32 state its step reads and writes per parameter.
enum class ModelOptimizer {
  SgdMomentum,  // reads weight, gradient and momentum, writes weight and momentum: 5 x 4 bytes
  Adam,         // reads weight, gradient and both moments, writes weight and both moments: 7 x 4 bytes
};
inline constexpr std::string_view kModelOptimizerNames[] = {"sgd-momentum", "adam"};
double optimizerBytesPerParameter(ModelOptimizer optimizer);
// What a rank that holds the whole model keeps per parameter, whatever its precision (Rajbhandari et al.,
// ZeRO, SC'20, section 3.1): weights and gradients (fp32, or 16-bit copies beside fp32 master weights)
// and the optimizer's state: 16 bytes with Adam, 12 with SGD's momentum. Activations come on top.
double modelStateBytesPerParameter(ModelOptimizer optimizer);
// The same, as weights, gradients and optimizer state, which sharded plans divide differently.
ModelStateBytes modelStateBytes(ModelOptimizer optimizer);

struct ModelProfile {
  std::string gpu;
  std::string key;        // "fp32-32"
  std::string precision;  // "fp32"
  int batch = 0;
  double iterationSeconds = 0;  // forward + backward + optimizer on one GPU, measured or derived
  std::string source;
  std::optional<MeasuredBreakdown> breakdown;  // forward_s, backward_s and optimizer_s, where measured
};

class Model {
 public:
  // Throws InvalidArgument naming the file and JSON path of anything malformed.
  static Model load(const std::string& path);
  // The same from a parsed document; `path` names it in errors.
  static Model fromJson(const nlohmann::json& json, const std::string& path);

  const std::string& name() const { return name_; }
  const std::string& path() const { return path_; }
  long long parameters() const;
  // Tokens per sample for a sequence model; 0 for a model of images.
  int sequenceLength() const { return sequenceLength_; }
  ModelOptimizer optimizer() const { return optimizer_; }
  const std::vector<ModelProfile>& profiles() const { return profiles_; }

  // One GPU's iteration at `batch` images on `gpu`, from the matching profile (InvalidArgument listing the
  // profiles there are otherwise). A profile with a measured breakdown gives its phases as measured.
  // Otherwise the measured time less the optimizer step is split one third forward, two thirds backward
  // (backward computes gradients of inputs and of weights, each about a forward's FLOPs), and the backward
  // third among the tensors in proportion to their backward FLOPs.
  // `precision` chooses the profile (one of kProfilePrecisions); the workload's gradients stay fp32 until the
  // caller says otherwise.
  TrainingWorkload workload(const std::string& gpu, int batch, const std::string& precision = "fp32") const;

  // The optimizer step, memory-bound: optimizerBytesPerParameter through the GPU's memory for every
  // parameter (an assumption: fp32 master weights and optimizer state whatever the compute precision, as
  // mixed-precision training keeps them).
  double optimizerSeconds(const std::string& gpu) const;

 private:
  struct Tensor {
    std::string name;
    Elements elements;
    double backwardFlopsPerSample;
  };
  struct Memory {
    std::string gpu;
    double bandwidthBps;
  };
  // What the assumed split needs, where a profile has no measured breakdown: backward FLOPs and memory.
  void checkWhatTheSplitNeeds(const JsonReader& root, double backwardFlops) const;

  std::string name_;
  std::string path_;
  int sequenceLength_ = 0;
  ModelOptimizer optimizer_ = ModelOptimizer::SgdMomentum;
  std::vector<Tensor> tensors_;
  std::vector<ModelProfile> profiles_;
  std::vector<Memory> memory_;
};

}  // namespace ddl
