#include "algorithms/training/iteration_plan.hpp"

#include <algorithm>
#include <stdexcept>

namespace ddl {

IterationPlan::IterationPlan(TrainingWorkload workload, std::int64_t bucketBytes, bool overlapBackward)
    : workload_(std::move(workload)), bucketBytes_(bucketBytes), overlapBackward_(overlapBackward) {
  if (bucketBytes_ < 1) throw std::invalid_argument("bucket bytes must be positive");
  Elements begin = 0;
  Elements end = 0;
  const auto& tensors = workload_.gradients;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    end += tensors[i].elements;
    const bool last = i + 1 == tensors.size();
    if (last || (end - begin) * workload_.elementBytes >= bucketBytes_) {
      buckets_.push_back({{begin, end - begin}, static_cast<int>(i)});
      begin = end;
    }
  }
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
    communicationEnd = std::max(communicationEnd, ready[b]) + allreduceSeconds[b];
  const double backwardEnd = workload.forwardSeconds + workload.backwardSeconds();
  return {std::max(backwardEnd, communicationEnd) + workload.optimizerSeconds, workload.computeSeconds()};
}

}  // namespace ddl
