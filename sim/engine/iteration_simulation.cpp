#include "sim/engine/iteration_simulation.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "algorithms/collectives/registry.hpp"

namespace ddl {
namespace {

// The schedules of every kind the parallelism runs, over every bucket (kind-major), with their algorithms.
IterationCollectives buildCollectives(const IterationPlan& plan, Parallelism parallelism, const BucketAlgorithms& algorithms, int gpus,
                                      int ranksPerNode) {
  const std::span<const CollectiveKind> kinds = collectiveKindsOf(parallelism);
  const std::size_t buckets = plan.buckets().size();
  if (algorithms.size() != kinds.size() * buckets) throw std::invalid_argument("one algorithm per bucket and collective kind");
  IterationCollectives collectives{iterationSteps(plan, parallelism, gpus, ranksPerNode), algorithms, {}, gpus};
  const int shardRanks = collectives.steps.shardRanks;
  collectives.schedules.reserve(algorithms.size());
  for (std::size_t k = 0; k < kinds.size(); ++k)
    for (std::size_t b = 0; b < buckets; ++b) {
      const AlgorithmChoice& choice = algorithms[k * buckets + b];
      if (parallelism == Parallelism::Hybrid)
        refuseSwitchReduction(*choice.algorithm, "algorithm", " under hybrid, whose collectives run over groups of ranks");
      const CollectiveSpec spec{kinds[k], gpus, collectiveElements(plan.buckets()[b].elements.count, parallelism, gpus),
                                plan.workload().elementBytes};
      if (parallelism != Parallelism::Hybrid) {
        collectives.schedules.push_back(makeSchedule(*choice.algorithm, spec, choice.options));
      } else {
        // Hybrid: all-gathers and reduce-scatters within each node, the allreduce of a node's shard across them.
        const RankGroups groups = kinds[k] == CollectiveKind::Allreduce ? RankGroups::AcrossGroups : RankGroups::WithinGroups;
        collectives.schedules.push_back(makeGroupedSchedule(*choice.algorithm, spec, shardRanks, groups, choice.options));
      }
    }
  return collectives;
}

}  // namespace

CollectiveMeasurement collectiveMeasurement(CollectiveKind kind, double bytes, double seconds, int gpus) {
  CollectiveMeasurement measured;
  measured.collective = std::string(toString(kind));
  measured.bytes = bytes;
  measured.seconds = seconds;
  measured.algbwBps = seconds > 0 ? bytes / seconds : 0;
  measured.busbwBps = measured.algbwBps * busBandwidthFactor(kind, gpus);
  return measured;
}

std::size_t IterationCollectives::scheduleIndex(const PlannedCollective& collective) const {
  const std::span<const CollectiveKind> kinds = collectiveKindsOf(steps.parallelism);
  const std::size_t kind = static_cast<std::size_t>(std::find(kinds.begin(), kinds.end(), collective.kind) - kinds.begin());
  return kind * (schedules.size() / kinds.size()) + collective.unit;
}

int IterationCollectives::switches() const {
  int switches = 0;
  for (const Schedule& schedule : schedules) {
    const int own = schedule.spec().switches;
    if (own == 0) continue;
    if (switches > 0 && own != switches) throw std::invalid_argument("schedules of one iteration reduce in different switches");
    switches = own;
  }
  return switches;
}

BucketAlgorithms sameForEveryBucket(const IterationPlan& plan, const AlgorithmDefinition& algorithm, const AlgorithmOptions& options) {
  return BucketAlgorithms(plan.buckets().size(), AlgorithmChoice{&algorithm, options});
}

IterationCollectives bucketAllreduces(const IterationPlan& plan, const BucketAlgorithms& algorithms, int gpus) {
  if (algorithms.size() != plan.buckets().size()) throw std::invalid_argument("one algorithm per bucket");
  return buildCollectives(plan, Parallelism::Ddp, algorithms, gpus, 0);
}

IterationCollectives bucketAllreduces(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                      const AlgorithmOptions& options, int gpus) {
  return bucketAllreduces(plan, sameForEveryBucket(plan, algorithm, options), gpus);
}

IterationCollectives shardedCollectives(const IterationPlan& plan, Parallelism parallelism, const ShardedAlgorithms& chosen,
                                        const AlgorithmOptions& options, int gpus, int ranksPerNode) {
  std::vector<BucketAlgorithms> perKind;
  for (CollectiveKind kind : collectiveKindsOf(parallelism)) {
    const AlgorithmDefinition* algorithm = kind == CollectiveKind::ReduceScatter ? chosen.reduceScatter
                                           : kind == CollectiveKind::AllGather   ? chosen.allGather
                                                                                 : chosen.allreduce;
    if (!algorithm) throw std::invalid_argument(std::string(parallelismName(parallelism)) + " needs an algorithm for each of its kinds");
    perKind.push_back(sameForEveryBucket(plan, *algorithm, options));
  }
  return shardedCollectives(plan, parallelism, perKind, gpus, ranksPerNode);
}

IterationCollectives shardedCollectives(const IterationPlan& plan, Parallelism parallelism,
                                        const std::vector<BucketAlgorithms>& perKind, int gpus, int ranksPerNode) {
  if (!isSharded(parallelism)) throw std::invalid_argument("ddp shards nothing: its collectives are bucketAllreduces");
  if (perKind.size() != collectiveKindsOf(parallelism).size())
    throw std::invalid_argument(std::string(parallelismName(parallelism)) + " needs the algorithms of each of its kinds");
  BucketAlgorithms algorithms;
  for (const BucketAlgorithms& each : perKind) {
    if (each.size() != plan.buckets().size()) throw std::invalid_argument("one algorithm per bucket and collective kind");
    algorithms.insert(algorithms.end(), each.begin(), each.end());
  }
  return buildCollectives(plan, parallelism, algorithms, gpus, ranksPerNode);
}

ShardedAlgorithms shardedAlgorithmsNamed(std::string_view name) {
  return {&findAlgorithm(CollectiveKind::ReduceScatter, name), &findAlgorithm(CollectiveKind::AllGather, name),
          &findAlgorithm(CollectiveKind::Allreduce, name)};
}

std::vector<std::size_t> largestScheduleOfEachAlgorithm(const IterationCollectives& collectives) {
  std::map<std::string, std::size_t> largestOf;  // by the algorithm's label and kind
  for (std::size_t s = 0; s < collectives.schedules.size(); ++s) {
    const std::string key = collectives.algorithms[s].label() + " " + std::string(toString(collectives.schedules[s].spec().kind));
    const auto [entry, added] = largestOf.emplace(key, s);
    if (!added && collectives.schedules[s].spec().elements > collectives.schedules[entry->second].spec().elements) entry->second = s;
  }
  std::vector<std::size_t> largest;
  for (const auto& [key, s] : largestOf) largest.push_back(s);
  return largest;
}

IterationSimulation summarizeIterations(const IterationRecord& record, const IterationPlan& plan, const IterationSteps& steps) {
  const std::size_t count = steps.collectives.size();
  const int iterations = record.iterations;
  IterationSimulation result;
  result.iterations = iterations;
  result.iterationSeconds = (*std::max_element(record.end.begin(), record.end.end()) - record.start) / iterations;
  for (std::size_t c = 0; c < count; ++c) {
    double seconds = 0;
    for (int iteration = 0; iteration < iterations; ++iteration) {
      const std::size_t at = static_cast<std::size_t>(iteration) * count + c;
      seconds += (record.collectiveEnd[at] - record.collectiveStart[at]) / iterations;
    }
    const PlannedCollective& collective = steps.collectives[c];
    result.allreduces.push_back(collectiveMeasurement(collective.kind, collectiveBytes(plan, collective), seconds, collective.groupRanks));
  }
  return result;
}

}  // namespace ddl
