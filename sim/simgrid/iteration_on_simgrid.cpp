#include "sim/simgrid/iteration_on_simgrid.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/simgrid/actor_outcomes.hpp"
#include "sim/simgrid/program_on_simgrid.hpp"

namespace ddl {
namespace sg4 = simgrid::s4u;

namespace {

// An execution of `flops` on `host`, started, at most at one rank's speed (a host shared by every rank's
// compute is faster than that: SimulatedPlatform::computeHost). Host::exec_init and Host::execute of SimGrid
// 3.32 place the execution on the calling actor's host, not on `host` (measured): the host is set explicitly.
sg4::ExecPtr startExecution(sg4::Host* host, double flops, double priority = 1) {
  sg4::ExecPtr execution = sg4::Exec::init();
  execution->set_flops_amount(flops);
  execution->set_host(host);
  execution->set_priority(priority);
  execution->set_bound(SimulatedPlatform::kHostSpeed);
  execution->start();
  return execution;
}

}  // namespace

IterationSimulation simulateIteration(const IterationPlan& plan, const BucketAllreduces& allreduces,
                                      const PlatformDescription& platform, const IterationEffects& effects,
                                      IterationTimeline* timeline, const std::string& group) {
  const int gpus = platform.hosts();
  const int iterations = effects.iterationsFor(gpus);
  const TrainingWorkload& workload = plan.workload();
  const std::vector<GradientBucket>& buckets = plan.buckets();
  if (allreduces.gpus != gpus) throw std::invalid_argument("bucket schedules for another GPU count than the platform's");
  const std::vector<Schedule>& schedules = allreduces.schedules;

  SimulatedPlatform simulated(platform);
  // The buckets of one algorithm talk between the same pairs: connect them from its largest bucket, a rank
  // at a time.
  for (std::size_t b : largestBucketOfEachAlgorithm(plan, allreduces.algorithms))
    for (Rank rank = 0; rank < gpus; ++rank) connectProgramPeers(schedules[b].program(rank), simulated);
  std::vector<sg4::Host*> computeHosts;  // after every route: see SimulatedPlatform::computeHost
  for (Rank rank = 0; rank < gpus; ++rank) computeHosts.push_back(simulated.computeHost(rank));

  // Phase b of the compute ends when bucket b may start its allreduce; the last ends with backward.
  const std::vector<double> phases = plan.computePhases();
  const std::size_t bucketCount = buckets.size();
  // One GPU has nothing to allreduce and no framework call to pay for.
  const double allreduceOverhead = gpus > 1 ? effects.allreduceOverheadSeconds : 0;

  const double start = SimulatedPlatform::now();
  std::vector<double> end(static_cast<std::size_t>(gpus), start);
  // Per iteration and bucket, over ranks: the first start and the last end of its allreduce.
  std::vector<double> bucketStart(bucketCount * static_cast<std::size_t>(iterations), std::numeric_limits<double>::infinity());
  std::vector<double> bucketEnd(bucketCount * static_cast<std::size_t>(iterations), start);
  // Per rank, in its current iteration: when it started, and when each bucket was full.
  std::vector<double> iterationStart(static_cast<std::size_t>(gpus), start);
  std::vector<std::vector<double>> bucketFullAt(static_cast<std::size_t>(gpus), std::vector<double>(bucketCount, start));
  ActorOutcomes outcomes(gpus);
  std::vector<sg4::SemaphorePtr> bucketFull, communicationDone;
  // Spans of the timeline, per rank, from the iteration's start: actors of one simulation run one at a time.
  std::vector<TimelineSpan> spans;
  auto record = [&](int iteration, Rank rank, const char* lane, std::string name, double from) {
    if (timeline && iteration == 0) spans.push_back({group, rank, lane, std::move(name), from - start, SimulatedPlatform::now() - start, {}});
  };
  for (Rank rank = 0; rank < gpus; ++rank) {
    bucketFull.push_back(sg4::Semaphore::create(0));
    communicationDone.push_back(sg4::Semaphore::create(0));
    sg4::Host* host = simulated.host(rank);
    const auto r = static_cast<std::size_t>(rank);
    sg4::Actor::create("compute" + std::to_string(rank), host, [&, rank, r] {
      outcomes.run(rank, [&] {
        const double gpuFactor = effects.gpuTimeFactor(gpus, rank);
        for (int iteration = 0; iteration < iterations; ++iteration) {
          if (effects.iterationOverheadSeconds > 0) sg4::this_actor::sleep_for(effects.iterationOverheadSeconds);
          // Where forward starts: the plan's times, and Horovod's ticks, count from here.
          iterationStart[r] = SimulatedPlatform::now();
          const double factor = gpuFactor * effects.computeFactor(gpus, iteration, rank);
          auto compute = [&](double seconds) {
            if (seconds > 0) startExecution(computeHosts[r], seconds * factor * SimulatedPlatform::kHostSpeed)->wait();
          };
          for (std::size_t b = 0; b < bucketCount; ++b) {
            const double from = SimulatedPlatform::now();
            compute(phases[b]);
            if (phases[b] > 0) record(iteration, rank, "compute", computePhaseName(b, bucketCount), from);
            bucketFullAt[r][b] = SimulatedPlatform::now();
            bucketFull[r]->release();
          }
          const double backwardEnd = SimulatedPlatform::now();
          compute(phases.back());
          if (phases.back() > 0) record(iteration, rank, "compute", computePhaseName(bucketCount, bucketCount), backwardEnd);
          communicationDone[r]->acquire();
          const double optimizerStart = SimulatedPlatform::now();
          compute(workload.optimizerSeconds);
          record(iteration, rank, "compute", computePhaseName(bucketCount + 1, bucketCount), optimizerStart);
        }
        end[r] = SimulatedPlatform::now();
      });
    });
    sg4::Actor::create("communication" + std::to_string(rank), host, [&, rank, r] {
      // A failure here leaves the compute actor waiting; outcomes.check reports both.
      outcomes.guard(rank, [&] {
        for (int iteration = 0; iteration < iterations; ++iteration) {
          for (std::size_t b = 0; b < bucketCount; ++b) {
            bucketFull[r]->acquire();
            // With Horovod's cycles, a bucket full before the last allreduce ended starts at once, as its
            // background loop starts the next cycle at once when the last overran.
            // One GPU calls no allreduce and waits for no tick.
            if (plan.cycleSeconds() > 0 && gpus > 1) {
              const double tick = iterationStart[r] + plan.nextTick(bucketFullAt[r][b] - iterationStart[r]);
              if (tick > SimulatedPlatform::now()) sg4::this_actor::sleep_until(tick);
            }
            if (allreduceOverhead > 0) sg4::this_actor::sleep_for(allreduceOverhead);
            const double from = SimulatedPlatform::now();
            const std::size_t at = static_cast<std::size_t>(iteration) * bucketCount + b;
            bucketStart[at] = std::min(bucketStart[at], from);
            sg4::ExecPtr contention;
            if (effects.overlapSlowdown > 0)
              contention = startExecution(computeHosts[r], kContentionSeconds * SimulatedPlatform::kHostSpeed, effects.overlapSlowdown);
            try {
              runProgramOnSimGrid(schedules[b].program(rank), simulated, workload.elementBytes);
            } catch (...) {
              if (contention) contention->cancel();  // not left to run on once the failure is reported
              throw;
            }
            if (contention) contention->cancel();
            bucketEnd[at] = std::max(bucketEnd[at], SimulatedPlatform::now());
            if (timeline && iteration == 0)
              spans.push_back(allreduceSpan(group, rank, b, static_cast<double>(buckets[b].elements.count) * workload.elementBytes,
                                            allreduces.algorithms[b].label(), schedules[b].program(rank), from - start,
                                            SimulatedPlatform::now() - start));
          }
          communicationDone[r]->release();
        }
      });
    });
  }
  outcomes.check(simulated.run());

  if (timeline) timeline->spans.insert(timeline->spans.end(), spans.begin(), spans.end());
  return summarizeIterations({start, iterations, std::move(end), std::move(bucketStart), std::move(bucketEnd)}, plan, gpus);
}

}  // namespace ddl
