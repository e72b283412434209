#pragma once
// One point of a scaling study, as both ddlsim (predicted) and ddlrun (measured) report it, so that
// analysis never cares where a number came from (DESIGN.md, "Results"). Weak scaling: every GPU keeps
// its batch, and efficiency is the one-GPU iteration time over the N-GPU one.

#include <string>
#include <vector>

namespace ddl {

struct CollectiveMeasurement {
  std::string collective = "allreduce";
  double bytes = 0;
  double seconds = 0;
  double algbwBps = 0;  // bytes / seconds
  double busbwBps = 0;  // algbw x nccl-tests' bus factor
};

struct ScalingPoint {
  std::string configuration;  // what was held fixed: scenario, cluster, model
  int gpus = 0;
  std::string algorithm;      // "ddl 4x16x4"
  int batchPerGpu = 0;
  double iterationSeconds = 0;
  double computeSeconds = 0;  // the same iteration on one GPU, with no communication
  std::vector<CollectiveMeasurement> collectives;

  double imagesPerSecond() const { return gpus * batchPerGpu / iterationSeconds; }
  double efficiency() const { return computeSeconds / iterationSeconds; }
  // Never negative: the one-GPU time is a lower bound, and sums in another order may differ by a rounding.
  double exposedCommunicationSeconds() const { return iterationSeconds > computeSeconds ? iterationSeconds - computeSeconds : 0; }
};

struct ScalingResults {
  std::string source;    // "ddlsim" or "ddlrun"
  std::string scenario;
  std::string topology;
  std::string model;
  std::string gpu;
  std::vector<ScalingPoint> points;
};

}  // namespace ddl
