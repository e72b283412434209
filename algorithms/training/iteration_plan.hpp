#pragma once
// The data-parallel iteration every backend runs (DESIGN.md, "The iteration"): forward; backward tensor by
// tensor in backprop order; gradients fused into buckets by a byte threshold, as PyTorch DDP and Horovod
// do; one allreduce per bucket, issued when the bucket is full and run one after another (one
// communication stream), overlapping the rest of the backward pass; the optimizer step after the last.

#include <cstdint>
#include <vector>

#include "algorithms/training/workload.hpp"

namespace ddl {

// PyTorch DistributedDataParallel's default bucket_cap_mb: 25 MiB.
constexpr std::int64_t kDefaultBucketBytes = 25LL * 1024 * 1024;

struct GradientBucket {
  // The bucket's elements in the flat gradient buffer, which holds the tensors in backprop order.
  Range elements;
  // Index of the last tensor in the bucket: the bucket is full once that tensor's gradient is computed.
  int lastTensor = 0;
};

class IterationPlan {
 public:
  // Closes a bucket once it holds at least `bucketBytes`; the last bucket closes with the last tensor.
  // Without overlap, no allreduce starts before the backward pass has ended, as in frameworks that
  // synchronise gradients after backward (Caffe's original P2PSync): an upper bound on exposed time.
  IterationPlan(TrainingWorkload workload, std::int64_t bucketBytes, bool overlapBackward = true);

  const TrainingWorkload& workload() const { return workload_; }
  const std::vector<GradientBucket>& buckets() const { return buckets_; }
  std::int64_t bucketBytes() const { return bucketBytes_; }
  bool overlapsBackward() const { return overlapBackward_; }

  // Seconds after the start of the iteration at which each bucket's allreduce may start: when the bucket
  // is full, or when backward ends if the plan does not overlap.
  std::vector<double> bucketReadySeconds() const;
  // The compute before the optimizer as consecutive phases, one per bucket and one more: phase b ends when
  // bucket b may start its allreduce, the last ends with backward. Every backend computes in these phases,
  // so that none works out the bucket boundaries again.
  std::vector<double> computePhases() const;

 private:
  TrainingWorkload workload_;
  std::int64_t bucketBytes_;
  bool overlapBackward_;
  std::vector<GradientBucket> buckets_;
};

// The iteration's time once each bucket's allreduce is known to take allreduceSeconds[b]: allreduce b
// starts when its bucket is full and allreduce b-1 has ended; the optimizer follows the later of the end of
// backward and the end of the last allreduce. With no communication it is workload.computeSeconds().
struct IterationTiming {
  double iterationSeconds = 0;
  double computeSeconds = 0;
  double exposedCommunicationSeconds() const { return iterationSeconds - computeSeconds; }
};
IterationTiming timeIteration(const IterationPlan& plan, const std::vector<double>& allreduceSeconds);

}  // namespace ddl
