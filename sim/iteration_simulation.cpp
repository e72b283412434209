#include "sim/iteration_simulation.hpp"

#include <algorithm>
#include <limits>

#include "algorithms/collectives/registry.hpp"
#include "sim/actor_outcomes.hpp"
#include "sim/collective_simulation.hpp"
#include "sim/program_on_simgrid.hpp"

namespace ddl {
namespace sg4 = simgrid::s4u;

IterationSimulation simulateIteration(const IterationPlan& plan, const AlgorithmDefinition& algorithm,
                                      const AlgorithmOptions& options, const PlatformDescription& platform,
                                      IterationTimeline* timeline, const std::string& group) {
  const int gpus = platform.hosts();
  const TrainingWorkload& workload = plan.workload();
  const std::vector<GradientBucket>& buckets = plan.buckets();
  std::vector<Schedule> schedules;
  for (const GradientBucket& bucket : buckets)
    schedules.push_back(makeSchedule(algorithm, {CollectiveKind::Allreduce, gpus, bucket.elements.count, workload.elementBytes},
                                     options));

  SimulatedPlatform simulated(platform);
  // Every bucket's schedule talks between the same pairs; connect them from the largest one, a rank at a time.
  const auto largest = std::max_element(buckets.begin(), buckets.end(), [](const auto& a, const auto& b) {
    return a.elements.count < b.elements.count;
  });
  for (Rank rank = 0; rank < gpus; ++rank)
    connectProgramPeers(schedules[static_cast<std::size_t>(largest - buckets.begin())].program(rank), simulated);

  // Phase b of the compute ends when bucket b may start its allreduce; the last ends with backward.
  const std::vector<double> phases = plan.computePhases();

  const double start = SimulatedPlatform::now();
  std::vector<double> end(static_cast<std::size_t>(gpus), start);
  std::vector<double> bucketStart(buckets.size(), std::numeric_limits<double>::infinity());
  std::vector<double> bucketEnd(buckets.size(), start);
  ActorOutcomes outcomes(gpus);
  std::vector<sg4::SemaphorePtr> bucketFull, communicationDone;
  // Spans of the timeline, per rank, from the iteration's start: actors of one simulation run one at a time.
  std::vector<TimelineSpan> spans;
  auto record = [&](Rank rank, const char* lane, std::string name, double from) {
    if (timeline) spans.push_back({group, rank, lane, std::move(name), from - start, SimulatedPlatform::now() - start});
  };
  auto compute = [](double seconds) {
    if (seconds > 0) sg4::this_actor::execute(seconds * SimulatedPlatform::kHostSpeed);
  };
  for (Rank rank = 0; rank < gpus; ++rank) {
    bucketFull.push_back(sg4::Semaphore::create(0));
    communicationDone.push_back(sg4::Semaphore::create(0));
    sg4::Host* host = simulated.host(rank);
    const auto r = static_cast<std::size_t>(rank);
    sg4::Actor::create("compute" + std::to_string(rank), host, [&, rank, r] {
      outcomes.run(rank, [&] {
        for (std::size_t b = 0; b < buckets.size(); ++b) {
          const double from = SimulatedPlatform::now();
          compute(phases[b]);
          if (phases[b] > 0) record(rank, "compute", computePhaseName(b, buckets.size()), from);
          bucketFull[r]->release();
        }
        const double backwardEnd = SimulatedPlatform::now();
        compute(phases.back());
        if (phases.back() > 0) record(rank, "compute", computePhaseName(buckets.size(), buckets.size()), backwardEnd);
        communicationDone[r]->acquire();
        const double optimizerStart = SimulatedPlatform::now();
        compute(workload.optimizerSeconds);
        record(rank, "compute", computePhaseName(buckets.size() + 1, buckets.size()), optimizerStart);
        end[r] = SimulatedPlatform::now();
      });
    });
    sg4::Actor::create("communication" + std::to_string(rank), host, [&, rank, r] {
      // A failure here leaves the compute actor waiting; outcomes.check reports both.
      outcomes.guard(rank, [&] {
        for (std::size_t b = 0; b < buckets.size(); ++b) {
          bucketFull[r]->acquire();
          const double from = SimulatedPlatform::now();
          bucketStart[b] = std::min(bucketStart[b], from);
          runProgramOnSimGrid(schedules[b].program(rank), simulated, workload.elementBytes);
          bucketEnd[b] = std::max(bucketEnd[b], SimulatedPlatform::now());
          record(rank, "allreduce",
                 bucketAllreduceName(b, static_cast<double>(buckets[b].elements.count) * workload.elementBytes), from);
        }
        communicationDone[r]->release();
      });
    });
  }
  outcomes.check(simulated.run());

  if (timeline) timeline->spans.insert(timeline->spans.end(), spans.begin(), spans.end());
  IterationSimulation result;
  result.iterationSeconds = *std::max_element(end.begin(), end.end()) - start;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    CollectiveMeasurement measured;
    measured.bytes = static_cast<double>(buckets[b].elements.count) * workload.elementBytes;
    measured.seconds = bucketEnd[b] - bucketStart[b];
    measured.algbwBps = measured.seconds > 0 ? measured.bytes / measured.seconds : 0;
    measured.busbwBps = measured.algbwBps * busBandwidthFactor(CollectiveKind::Allreduce, gpus);
    result.allreduces.push_back(measured);
  }
  return result;
}

}  // namespace ddl
