#pragma once
// The data-parallel iteration every backend runs (DESIGN.md, "The iteration"): forward; backward tensor by
// tensor in backprop order; gradients fused into buckets by a byte threshold, as PyTorch DDP and Horovod
// do; one allreduce per bucket, issued when the bucket is full and run one after another (one
// communication stream), overlapping the rest of the backward pass; the optimizer step after the last.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "algorithms/training/workload.hpp"

namespace ddl {

// PyTorch DistributedDataParallel's default bucket_cap_mb: 25 MiB.
constexpr std::int64_t kDefaultBucketBytes = 25LL * 1024 * 1024;
// DDP's first bucket, which it keeps small so that communication starts early: 1 MiB
// (torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES).
constexpr std::int64_t kDdpFirstBucketBytes = 1024LL * 1024;
// Horovod's defaults since v0.21.0 (horovod/common/operations.cc): HOROVOD_FUSION_THRESHOLD 128 MiB and
// HOROVOD_CYCLE_TIME 1 ms; before, 64 MiB and 5 ms.
constexpr std::int64_t kHorovodFusionThresholdBytes = 128LL * 1024 * 1024;
constexpr double kHorovodCycleSeconds = 1e-3;

// How gradients are fused into the buckets that are allreduced, as frameworks do it.
enum class FusionPolicy {
  Size,      // a bucket closes once it holds bucketBytes (every bucket alike)
  Ddp,       // PyTorch DDP: the same, the first bucket closing at firstBucketBytes
  Horovod,   // Horovod: every cycle, the tensors ready since the last, fused while they fit in bucketBytes
             // (a larger one alone), allreduced at the cycle's tick
  PerLayer,  // Caffe's layer_wise_reduce: one allreduce per layer, over all its learnable blobs (tensors
             // named layer.weight, layer.bias)
};
struct GradientFusion {
  FusionPolicy policy = FusionPolicy::Size;
  std::int64_t bucketBytes = kDefaultBucketBytes;
  std::int64_t firstBucketBytes = kDdpFirstBucketBytes;  // Ddp
  double cycleSeconds = kHorovodCycleSeconds;            // Horovod
};
// "size", "ddp", "horovod", "per-layer", as scenarios and results name them.
const char* fusionPolicyName(FusionPolicy policy);
// The policy of that name; none for a name that is no policy's.
std::optional<FusionPolicy> fusionPolicyNamed(std::string_view name);
// Every policy's name, for messages that list them.
inline constexpr std::string_view kFusionPolicyNames[] = {"size", "ddp", "horovod", "per-layer"};

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
  // Buckets as `fusion` forms them; with Horovod's, from the compute times of `workload`.
  IterationPlan(TrainingWorkload workload, const GradientFusion& fusion, bool overlapBackward = true);

  const TrainingWorkload& workload() const { return workload_; }
  const std::vector<GradientBucket>& buckets() const { return buckets_; }
  std::int64_t bucketBytes() const { return fusion_.bucketBytes; }
  const GradientFusion& fusion() const { return fusion_; }
  // The period at whose ticks (from the start of a rank's iteration) allreduces start: Horovod's cycle
  // time; 0 for every other policy, whose allreduces start when their bucket is full.
  double cycleSeconds() const { return fusion_.policy == FusionPolicy::Horovod ? fusion_.cycleSeconds : 0; }
  // The next tick at or after `seconds` since the iteration's start; `seconds` itself without cycles.
  double nextTick(double seconds) const;
  bool overlapsBackward() const { return overlapBackward_; }

  // Seconds after the start of the iteration at which each bucket is full, or at which backward ends if
  // the plan does not overlap: its allreduce may start then, or at nextTick of it with Horovod's cycles.
  std::vector<double> bucketReadySeconds() const;
  // The compute before the optimizer as consecutive phases, one per bucket and one more: phase b ends when
  // bucket b may start its allreduce, the last ends with backward. Every backend computes in these phases,
  // so that none works out the bucket boundaries again.
  std::vector<double> computePhases() const;

 private:
  TrainingWorkload workload_;
  GradientFusion fusion_;
  bool overlapBackward_;
  std::vector<GradientBucket> buckets_;
};

// The iteration's time once each bucket's allreduce is known to take allreduceSeconds[b]: allreduce b
// starts when its bucket is full (at the next tick with cycles) and allreduce b-1 has ended; the optimizer follows the later of the end of
// backward and the end of the last allreduce. With no communication it is workload.computeSeconds().
struct IterationTiming {
  double iterationSeconds = 0;
  double computeSeconds = 0;
  double exposedCommunicationSeconds() const { return iterationSeconds - computeSeconds; }
};
IterationTiming timeIteration(const IterationPlan& plan, const std::vector<double>& allreduceSeconds);

}  // namespace ddl
