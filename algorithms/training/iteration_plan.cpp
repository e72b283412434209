#include "algorithms/training/iteration_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <stdexcept>

namespace ddl {

const char* fusionPolicyName(FusionPolicy policy) {
  switch (policy) {
    case FusionPolicy::Size: return "size";
    case FusionPolicy::Ddp: return "ddp";
    case FusionPolicy::Horovod: return "horovod";
    case FusionPolicy::PerLayer: return "per-layer";
  }
  return "?";
}

std::optional<FusionPolicy> fusionPolicyNamed(std::string_view name) {
  for (FusionPolicy policy : {FusionPolicy::Size, FusionPolicy::Ddp, FusionPolicy::Horovod, FusionPolicy::PerLayer})
    if (name == fusionPolicyName(policy)) return policy;
  return std::nullopt;
}

namespace {

// "layer4.2.conv3" of "layer4.2.conv3.weight": Caffe reduces a layer's learnable blobs together.
std::string_view layerOf(std::string_view tensor) {
  const std::size_t dot = tensor.rfind('.');
  return dot == std::string_view::npos ? tensor : tensor.substr(0, dot);
}

}  // namespace

IterationPlan::IterationPlan(TrainingWorkload workload, std::int64_t bucketBytes, bool overlapBackward)
    : IterationPlan(std::move(workload), GradientFusion{FusionPolicy::Size, bucketBytes}, overlapBackward) {}

IterationPlan::IterationPlan(TrainingWorkload workload, const GradientFusion& fusion, bool overlapBackward)
    : workload_(std::move(workload)), fusion_(fusion), overlapBackward_(overlapBackward) {
  if (fusion_.bucketBytes < 1 || fusion_.firstBucketBytes < 1) throw std::invalid_argument("bucket bytes must be positive");
  if (fusion_.policy == FusionPolicy::Horovod && !(fusion_.cycleSeconds > 0)) throw std::invalid_argument("cycle time must be positive");
  const auto& tensors = workload_.gradients;
  // When each tensor's gradient is ready, for Horovod's cycles: a tensor joins the tick after it.
  std::vector<double> readyAt;
  double now = workload_.forwardSeconds;
  for (const GradientTensor& tensor : tensors) readyAt.push_back(now += tensor.backwardSeconds);
  auto closesAfter = [&](std::size_t i, Elements bucketElements) {
    const std::int64_t bytes = bucketElements * workload_.elementBytes;
    switch (fusion_.policy) {
      case FusionPolicy::Size: return bytes >= fusion_.bucketBytes;
      case FusionPolicy::Ddp: return bytes >= (buckets_.empty() ? fusion_.firstBucketBytes : fusion_.bucketBytes);
      case FusionPolicy::PerLayer: return layerOf(tensors[i].name) != layerOf(tensors[i + 1].name);
      case FusionPolicy::Horovod:
        // The next tensor is ready in a later cycle (with no overlap, all are ready at the end of
        // backward), or would take the fusion buffer past its threshold.
        return (overlapBackward_ && nextTick(readyAt[i]) != nextTick(readyAt[i + 1])) ||
               bytes + tensors[i + 1].elements * workload_.elementBytes > fusion_.bucketBytes;
    }
    return true;
  };
  Elements begin = 0;
  Elements end = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    end += tensors[i].elements;
    if (i + 1 == tensors.size() || closesAfter(i, end - begin)) {
      buckets_.push_back({{begin, end - begin}, static_cast<int>(i)});
      begin = end;
    }
  }
}

double IterationPlan::nextTick(double seconds) const {
  const double cycle = cycleSeconds();
  // A time a rounding past a tick (0.020000000000000004 for 0.02) is at that tick, not a cycle later.
  return cycle > 0 ? std::ceil(seconds / cycle - 1e-9) * cycle : seconds;
}

std::vector<double> IterationPlan::bucketReadySeconds() const {
  if (!overlapBackward_)
    return std::vector<double>(buckets_.size(), workload_.forwardSeconds + workload_.backwardSeconds());
  std::vector<double> ready;
  double now = workload_.forwardSeconds;
  std::size_t bucket = 0;
  for (std::size_t i = 0; i < workload_.gradients.size() && bucket < buckets_.size(); ++i) {
    now += workload_.gradients[i].backwardSeconds;
    while (bucket < buckets_.size() && buckets_[bucket].lastTensor == static_cast<int>(i)) {
      ready.push_back(now);
      ++bucket;
    }
  }
  return ready;
}

std::vector<double> IterationPlan::computePhases() const {
  std::vector<double> phases;
  double previous = 0;
  for (double ready : bucketReadySeconds()) {
    phases.push_back(ready - previous);
    previous = ready;
  }
  phases.push_back(workload_.forwardSeconds + workload_.backwardSeconds() - previous);
  return phases;
}

IterationTiming timeIteration(const IterationPlan& plan, const std::vector<double>& allreduceSeconds) {
  if (allreduceSeconds.size() != plan.buckets().size())
    throw std::invalid_argument("need one allreduce time per bucket");
  const TrainingWorkload& workload = plan.workload();
  double communicationEnd = 0;
  const std::vector<double> ready = plan.bucketReadySeconds();
  for (std::size_t b = 0; b < ready.size(); ++b)
    communicationEnd = std::max(communicationEnd, plan.nextTick(ready[b])) + allreduceSeconds[b];
  const double backwardEnd = workload.forwardSeconds + workload.backwardSeconds();
  return {std::max(backwardEnd, communicationEnd) + workload.optimizerSeconds, workload.computeSeconds()};
}

}  // namespace ddl
