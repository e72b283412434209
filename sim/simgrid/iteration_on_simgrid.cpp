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

IterationSimulation simulateIteration(const IterationPlan& plan, const IterationCollectives& collectives,
                                      const PlatformDescription& platform, const IterationEffects& effects,
                                      IterationTimeline* timeline, const std::string& group) {
  const int gpus = collectives.gpus;
  const int participants = collectives.participants();  // the GPUs, then the switches that reduce between them
  const int iterations = effects.iterationsFor(gpus);
  const TrainingWorkload& workload = plan.workload();
  if (participants != platform.hosts())
    throw std::invalid_argument("collective schedules for another GPU or switch count than the platform's");
  const IterationSteps& steps = collectives.steps;
  const std::vector<ComputePhase>& phases = steps.phases;
  const std::vector<PlannedCollective>& planned = steps.collectives;

  SimulatedPlatform simulated(platform);
  // The schedules of one algorithm and kind talk between the same pairs: connect them from its largest, a
  // rank at a time.
  for (std::size_t s : largestScheduleOfEachAlgorithm(collectives))
    for (Rank rank = 0; rank < collectives.schedules[s].participants(); ++rank)
      connectProgramPeers(collectives.schedules[s].program(rank), simulated);
  std::vector<sg4::Host*> computeHosts;  // after every route: see SimulatedPlatform::computeHost
  for (Rank rank = 0; rank < gpus; ++rank) computeHosts.push_back(simulated.computeHost(rank));

  const std::size_t count = planned.size();
  // One GPU has nothing to exchange and no framework call to pay for.
  const double collectiveOverhead = gpus > 1 ? effects.allreduceOverheadSeconds : 0;

  const double start = SimulatedPlatform::now();
  std::vector<double> end(static_cast<std::size_t>(gpus), start);
  // Per iteration and collective, over ranks: its first start and last end.
  std::vector<double> collectiveStart(count * static_cast<std::size_t>(iterations), std::numeric_limits<double>::infinity());
  std::vector<double> collectiveEnd(count * static_cast<std::size_t>(iterations), start);
  // Per rank, in its current iteration: when it started, and when each phase ended.
  std::vector<double> iterationStart(static_cast<std::size_t>(gpus), start);
  std::vector<std::vector<double>> phaseEndAt(static_cast<std::size_t>(gpus), std::vector<double>(phases.size(), start));
  ActorOutcomes outcomes(participants);
  // Per rank, released once per phase that ends (and once as its iteration starts), and once per collective
  // that ends: each side counts what it has acquired, since the indices it waits for only grow.
  std::vector<sg4::SemaphorePtr> phaseEnded, collectiveEnded;
  // Spans of the timeline, per rank, from the iteration's start: actors of one simulation run one at a time.
  std::vector<TimelineSpan> spans;
  for (Rank rank = 0; rank < gpus; ++rank) {
    phaseEnded.push_back(sg4::Semaphore::create(0));
    collectiveEnded.push_back(sg4::Semaphore::create(0));
    sg4::Host* host = simulated.host(rank);
    const auto r = static_cast<std::size_t>(rank);
    sg4::Actor::create("compute" + std::to_string(rank), host, [&, rank, r] {
      outcomes.run(rank, [&] {
        const double timeFactor = effects.rankTimeFactor(gpus, rank);
        for (int iteration = 0; iteration < iterations; ++iteration) {
          if (effects.iterationOverheadSeconds > 0) sg4::this_actor::sleep_for(effects.iterationOverheadSeconds);
          // Where forward starts: the plan's times, and Horovod's ticks, count from here.
          iterationStart[r] = SimulatedPlatform::now();
          phaseEnded[r]->release();
          const double factor = timeFactor * effects.computeFactor(gpus, iteration, rank);
          std::size_t collectivesEnded = 0;
          auto awaitCollectives = [&](std::size_t needed) {
            for (; collectivesEnded < needed; ++collectivesEnded) collectiveEnded[r]->acquire();
          };
          for (std::size_t k = 0; k < phases.size(); ++k) {
            const ComputePhase& phase = phases[k];
            if (phase.waitsFor >= 0) awaitCollectives(static_cast<std::size_t>(phase.waitsFor) + 1);
            const double from = SimulatedPlatform::now();
            if (phase.seconds > 0) startExecution(computeHosts[r], phase.seconds * factor * SimulatedPlatform::kHostSpeed)->wait();
            // As both engines record them: phases of no time are no span, but the last (the optimizer) always is.
            if (timeline && iteration == 0 && (phase.seconds > 0 || k + 1 == phases.size()))
              spans.push_back({group, rank, "compute", phase.name, from - start, SimulatedPlatform::now() - start, {}});
            phaseEndAt[r][k] = SimulatedPlatform::now();
            phaseEnded[r]->release();
          }
          awaitCollectives(count);
        }
        end[r] = SimulatedPlatform::now();
      });
    });
    sg4::Actor::create("communication" + std::to_string(rank), host, [&, rank, r] {
      // A failure here leaves the compute actor waiting; outcomes.check reports both.
      outcomes.guard(rank, [&] {
        for (int iteration = 0; iteration < iterations; ++iteration) {
          int phasesEnded = kIterationStart - 1;  // the iteration's start counts as phase -1
          for (std::size_t c = 0; c < count; ++c) {
            const PlannedCollective& collective = planned[c];
            for (; phasesEnded < collective.readyAfter; ++phasesEnded) phaseEnded[r]->acquire();
            // With Horovod's cycles, a bucket full before the last allreduce ended starts at once, as its
            // background loop starts the next cycle at once when the last overran.
            // One GPU calls no collective and waits for no tick.
            if (plan.cycleSeconds() > 0 && gpus > 1 && collective.readyAfter >= 0) {
              const double full = phaseEndAt[r][static_cast<std::size_t>(collective.readyAfter)];
              const double tick = iterationStart[r] + plan.nextTick(full - iterationStart[r]);
              if (tick > SimulatedPlatform::now()) sg4::this_actor::sleep_until(tick);
            }
            if (collectiveOverhead > 0) sg4::this_actor::sleep_for(collectiveOverhead);
            const double from = SimulatedPlatform::now();
            const std::size_t at = static_cast<std::size_t>(iteration) * count + c;
            collectiveStart[at] = std::min(collectiveStart[at], from);
            sg4::ExecPtr contention;
            if (effects.overlapSlowdown > 0)
              contention = startExecution(computeHosts[r], kContentionSeconds * SimulatedPlatform::kHostSpeed, effects.overlapSlowdown);
            const std::size_t s = collectives.scheduleIndex(collective);
            const Program program = collectives.schedules[s].program(rank);
            try {
              runProgramOnSimGrid(program, simulated, workload.elementBytes, collectives.schedules[s].spec().wireBytesPerByte());
            } catch (...) {
              if (contention) contention->cancel();  // not left to run on once the failure is reported
              throw;
            }
            if (contention) contention->cancel();
            collectiveEnd[at] = std::max(collectiveEnd[at], SimulatedPlatform::now());
            if (timeline && iteration == 0) {
              const double bytes = collectiveBytes(plan, collective);
              spans.push_back(collectiveSpan(group, rank, toString(collective.kind), plannedCollectiveName(steps.parallelism, collective, bytes),
                                             collective.unit, bytes, collectives.algorithms[s].label(), program, from - start,
                                             SimulatedPlatform::now() - start));
            }
            collectiveEnded[r]->release();
          }
          // The phases of this iteration not waited for: the compute side released one per phase.
          for (; phasesEnded < static_cast<int>(phases.size()) - 1; ++phasesEnded) phaseEnded[r]->acquire();
        }
      });
    });
  }
  // A switch runs its part of every collective that reduces in it, in the GPUs' order, iteration after
  // iteration: it only answers their loads and stores, and a mailbox matches in order whoever posts first.
  for (Rank participant = gpus; participant < participants; ++participant) {
    sg4::Actor::create("switch" + std::to_string(participant - gpus), simulated.host(participant), [&, participant] {
      outcomes.run(participant, [&] {
        for (int iteration = 0; iteration < iterations; ++iteration)
          for (const PlannedCollective& collective : planned) {
            const Schedule& schedule = collectives.scheduleOf(collective);
            if (schedule.spec().switches == 0) continue;
            runProgramOnSimGrid(schedule.program(participant), simulated, workload.elementBytes, schedule.spec().wireBytesPerByte());
          }
      });
    });
  }
  outcomes.check(simulated.run());

  if (timeline) timeline->spans.insert(timeline->spans.end(), spans.begin(), spans.end());
  return summarizeIterations({start, iterations, std::move(end), std::move(collectiveStart), std::move(collectiveEnd)}, plan, steps);
}

}  // namespace ddl
