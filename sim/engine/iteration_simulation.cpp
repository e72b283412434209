#include "sim/engine/iteration_simulation.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "algorithms/collectives/registry.hpp"

namespace ddl {

CollectiveMeasurement allreduceMeasurement(double bytes, double seconds, int gpus) {
  CollectiveMeasurement measured;
  measured.bytes = bytes;
  measured.seconds = seconds;
  measured.algbwBps = seconds > 0 ? bytes / seconds : 0;
  measured.busbwBps = measured.algbwBps * busBandwidthFactor(CollectiveKind::Allreduce, gpus);
  return measured;
}

BucketAlgorithms sameForEveryBucket(const IterationPlan& plan, const AlgorithmDefinition& algorithm, const AlgorithmOptions& options) {
  return BucketAlgorithms(plan.buckets().size(), AlgorithmChoice{&algorithm, options});
}

BucketAllreduces bucketAllreduces(const IterationPlan& plan, const BucketAlgorithms& algorithms, int gpus) {
  if (algorithms.size() != plan.buckets().size()) throw std::invalid_argument("one algorithm per bucket");
  BucketAllreduces buckets{algorithms, {}, gpus};
  buckets.schedules.reserve(algorithms.size());
  for (std::size_t b = 0; b < algorithms.size(); ++b)
    buckets.schedules.push_back(makeSchedule(*algorithms[b].algorithm,
                                             {CollectiveKind::Allreduce, gpus, plan.buckets()[b].elements.count, plan.workload().elementBytes},
                                             algorithms[b].options));
  return buckets;
}

BucketAllreduces bucketAllreduces(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                  const AlgorithmOptions& options, int gpus) {
  return bucketAllreduces(plan, sameForEveryBucket(plan, algorithm, options), gpus);
}

std::vector<std::size_t> largestBucketOfEachAlgorithm(const IterationPlan& plan, const BucketAlgorithms& algorithms) {
  const std::vector<GradientBucket>& buckets = plan.buckets();
  std::map<std::string, std::size_t> largestOf;  // by the algorithm's label
  for (std::size_t b = 0; b < algorithms.size(); ++b) {
    const auto [entry, added] = largestOf.emplace(algorithms[b].label(), b);
    if (!added && buckets[b].elements.count > buckets[entry->second].elements.count) entry->second = b;
  }
  std::vector<std::size_t> largest;
  for (const auto& [label, b] : largestOf) largest.push_back(b);
  return largest;
}

IterationSimulation summarizeIterations(const IterationRecord& record, const IterationPlan& plan, int gpus) {
  const std::vector<GradientBucket>& buckets = plan.buckets();
  const int iterations = record.iterations;
  IterationSimulation result;
  result.iterations = iterations;
  result.iterationSeconds = (*std::max_element(record.end.begin(), record.end.end()) - record.start) / iterations;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    double seconds = 0;
    for (int iteration = 0; iteration < iterations; ++iteration) {
      const std::size_t at = static_cast<std::size_t>(iteration) * buckets.size() + b;
      seconds += (record.bucketEnd[at] - record.bucketStart[at]) / iterations;
    }
    result.allreduces.push_back(
        allreduceMeasurement(static_cast<double>(buckets[b].elements.count) * plan.workload().elementBytes, seconds, gpus));
  }
  return result;
}

}  // namespace ddl
