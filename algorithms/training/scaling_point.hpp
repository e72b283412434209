#pragma once
// One point of a scaling study, as both ddlsim (predicted) and ddlrun (measured) report it, so that
// analysis never cares where a number came from (DESIGN.md, "Results"). Weak scaling: every GPU keeps
// its batch, and efficiency is the baseline's iteration time over the N-GPU one: by default the baseline
// is one GPU alone (its compute, no communication); a scenario may set another (Goyal et al.: 8 GPUs).

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/training/measured_effects.hpp"

namespace ddl {

struct CollectiveMeasurement {
  std::string collective = "allreduce";
  double bytes = 0;
  double seconds = 0;
  double algbwBps = 0;  // bytes / seconds
  double busbwBps = 0;  // algbw x nccl-tests' bus factor
  std::string chosen;   // what a scenario's "auto" chose to run it ("ddl 4x16x4"); empty for one algorithm
};

// Who wrote a results file and how, so that analysis joins only points that describe the same run.
struct RunDescription {
  std::string tool;       // "ddlsim" or "ddlrun"
  std::string version;    // ddlscale's
  std::string commit;     // git describe of the build, or "unknown"
  std::string transport;  // "simulated", or ddlrun's --transport
  std::optional<double> computeScale;    // scaling studies: what the model's compute times were multiplied by
  std::optional<std::string> precision;         // scaling studies: the gradients' element type ("fp32", "bf16")
  std::optional<std::string> computePrecision;  // scaling studies: the compute profile's ("fp32", "amp", "bf16")
  std::optional<std::string> fusion;            // scaling studies: the fusion policy ("size", "ddp", "horovod", "per-layer")
  std::optional<std::string> parallelism;       // scaling studies: "ddp", "zero1", "zero2", "zero3", "fsdp", "hybrid" (parallelism.hpp)
  std::optional<std::string> engine;            // ddlsim: the engine that simulated it ("message" or "step", sim/registered_engines.hpp)
  // ddlsim: the effects that were on (algorithms/training/iteration_effects.hpp), by their scenario keys,
  // and "seed"; gpu_time_factors, the file a GPU's factor was drawn from, and job_time_factors, the file
  // the samples drew the job's factor from. Empty: none.
  std::map<std::string, double> effects;
  std::string gpuTimeFactors;
  std::string jobTimeFactors;
};

// The RunDescription of this build of `tool`.
RunDescription describeRun(const std::string& tool, const std::string& transport);

// The 5th, 50th and 95th percentile of a quantity over Monte Carlo samples.
struct Percentiles {
  double p05 = 0;
  double p50 = 0;
  double p95 = 0;
};

// ddlsim --samples: a point predicted as a distribution over the priors of its uncertain inputs, each
// sample's efficiency against its baseline under the same draw. The 90% interval is p05 to p95.
struct PredictiveInterval {
  int samples = 0;
  Percentiles iterationSeconds;
  Percentiles imagesPerSecond;
  Percentiles efficiency;
};

// The percentiles of `values` (not empty), each interpolated between the two nearest order statistics
// (Hyndman and Fan's definition 7, numpy's default).
Percentiles percentilesOf(std::vector<double> values);

struct ScalingPoint {
  std::string configuration;  // what was held fixed: scenario, cluster, model
  int gpus = 0;
  int hosts = 0;              // nodes (ddlsim) or machines (ddlrun: distinct host names and network namespaces)
  int ranksPerHost = 0;       // the most ranks on one of them
  std::string algorithmName;  // "ddl"
  AlgorithmOptions parameters;  // its options at this GPU count: {dims: 4x16x4}
  std::string label;          // both, for tables: "ddl 4x16x4"
  int batchPerGpu = 0;
  double iterationSeconds = 0;
  // The same iteration's compute, with no communication: one GPU alone's, but under a sharded plan one of
  // these GPUs', whose optimizer steps its shard (then baselineSeconds holds one GPU alone's).
  double computeSeconds = 0;
  int baselineGpus = 1;       // what efficiency is measured against
  std::optional<double> baselineSeconds;  // the iteration at baselineGpus; unset: computeSeconds (one GPU)
  // ddlsim: the part of the exposed communication that is the links' latency, the rest being bandwidth:
  // the same point simulated with every latency zeroed exposes only the bandwidth part. Unset for
  // measured points, whose time cannot be split so.
  std::optional<double> exposedLatencySeconds;
  // ddlsim --samples: the distribution over the priors. iterationSeconds and the rest above are the
  // simulation at every input's central value.
  std::optional<PredictiveInterval> interval;
  // Files written by ddlsim --range before 2026-12-05 (replaced by --samples): the efficiency with every
  // sourced effect at its pessimistic end, and at its optimistic end. Read, and written back, never made.
  std::optional<std::pair<double, double>> efficiencyRange;
  // ddlsim: where the step engine evened buckets to simulate ranks that do the same thing once (a flat ring
  // of thousands of GPUs, sim/step/step_iteration.hpp), the largest relative change of a bucket's elements.
  std::optional<double> evenedBucketChange;
  std::vector<CollectiveMeasurement> collectives;
  // ddlrun train: the effects as it measured them, for ddlsim calibrate.
  std::optional<MeasuredEffects> measuredEffects;

  double imagesPerSecond() const { return gpus * batchPerGpu / iterationSeconds; }
  double baselineIterationSeconds() const { return baselineSeconds.value_or(computeSeconds); }
  double efficiency() const { return baselineIterationSeconds() / iterationSeconds; }
  // Never negative: the compute is a lower bound, and sums in another order may differ by a rounding.
  double exposedCommunicationSeconds() const { return iterationSeconds > computeSeconds ? iterationSeconds - computeSeconds : 0; }
  double exposedBandwidthSeconds() const { return exposedCommunicationSeconds() - exposedLatencySeconds.value_or(0); }
};

struct ScalingResults {
  std::string source;    // "ddlsim" or "ddlrun"
  RunDescription run;
  std::string scenario;
  std::string topology;
  std::string model;
  std::string gpu;
  std::vector<ScalingPoint> points;
};

}  // namespace ddl
