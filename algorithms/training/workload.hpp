#pragma once
// One GPU's share of a training iteration, in the terms the iteration plan needs: how long each phase
// computes, and which gradient tensors each step of the backward pass releases. Filled from a model file
// (models/) for a GPU type and batch size; backend-free.

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/schedule/range.hpp"

namespace ddl {

struct GradientTensor {
  std::string name;
  Elements elements = 0;
  // Time to compute this tensor's gradient once the previous one (in backprop order) is done.
  double backwardSeconds = 0;
};

// The element types gradients may be allreduced in. fp16 and bf16 have one size; which one matters to a
// runtime that reduces them, and to results.
inline constexpr std::string_view kGradientPrecisions[] = {"fp32", "fp16", "bf16"};
// 4 for fp32, 2 for fp16 and bf16; 0 for a name that is none of them.
int gradientElementBytes(std::string_view precision);

struct TrainingWorkload {
  std::string model;
  std::string gpu;
  int batchPerGpu = 0;
  std::string computePrecision = "fp32";   // of the profile the compute times come from (models/)
  std::string gradientPrecision = "fp32";  // one of kGradientPrecisions
  int elementBytes = 4;                    // gradientElementBytes(gradientPrecision)
  double forwardSeconds = 0;
  std::vector<GradientTensor> gradients;  // backprop order: the first is ready first
  double optimizerSeconds = 0;

  double backwardSeconds() const;
  // Forward, backward and optimizer on one GPU: an iteration with no communication at all.
  double computeSeconds() const { return forwardSeconds + backwardSeconds() + optimizerSeconds; }
  Elements gradientElements() const;
  // The same iteration with every compute time multiplied by `factor`: how CPU runs shrink a GPU's work.
  TrainingWorkload scaled(double factor) const;
};

}  // namespace ddl
