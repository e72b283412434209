#include "sim/step/step_iteration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "algorithms/collectives/algorithm_options.hpp"
#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"
#include "sim/engine/stuck_ranks.hpp"
#include "sim/step/step_program_runs.hpp"

namespace ddl::step {
namespace {

// What an event of a rank is, in its tag's top byte; the rank is the rest.
enum class Wake : std::uint64_t { ComputeDone = 1, IterationOverheadDone, TickCome, AllreduceOverheadDone };

std::uint64_t tagOf(Wake wake, Rank rank) { return (static_cast<std::uint64_t>(wake) << 56) | static_cast<std::uint32_t>(rank); }

class Iterations final : public ProgramRuns::Owner, public FluidSimulation::Listener {
 public:
  Iterations(const IterationPlan& plan, const IterationCollectives& collectives, const std::vector<Schedule>& schedules,
             const IterationEffects& effects, StepPlatform& platform, IterationTimeline* timeline, const std::string& group)
      : plan_(plan), collectives_(collectives), steps_(collectives.steps), schedules_(schedules), effects_(effects), platform_(platform),
        simulation_(platform.simulation()), gpus_(collectives.gpus), simulated_(std::min(platform.simulatedRanks(), gpus_)),
        iterations_(effects.iterationsFor(gpus_)), count_(steps_.collectives.size()), lastPhase_(steps_.phases.size() - 1),
        collectiveOverhead_(gpus_ > 1 ? effects.allreduceOverheadSeconds : 0), timeline_(timeline), group_(group),
        ranks_(static_cast<std::size_t>(gpus_)), switches_(static_cast<std::size_t>(collectives.switches())),
        runs_(platform, plan.workload().elementBytes, *this) {
    record_.iterations = iterations_;
    record_.end.assign(static_cast<std::size_t>(gpus_), 0);
    record_.collectiveStart.assign(count_ * static_cast<std::size_t>(iterations_), std::numeric_limits<double>::infinity());
    record_.collectiveEnd.assign(count_ * static_cast<std::size_t>(iterations_), 0);
    for (Rank rank = 0; rank < gpus_; ++rank) {
      ranks_[static_cast<std::size_t>(rank)].timeFactor = effects.rankTimeFactor(gpus_, rank);
      ranks_[static_cast<std::size_t>(rank)].phaseEndAt.assign(steps_.phases.size(), 0);
    }
  }

  void start() {
    for (Rank rank = 0; rank < simulated_; ++rank) startIteration(rank);
    for (std::size_t s = 0; s < switches_.size(); ++s) nextSwitchProgram(gpus_ + static_cast<Rank>(s));
  }

  IterationSimulation result() {
    std::vector<Rank> waiting;
    for (Rank rank = 0; rank < simulated_; ++rank)
      if (!ranks_[static_cast<std::size_t>(rank)].finished) waiting.push_back(rank);
    for (std::size_t s = 0; s < switches_.size(); ++s)
      if (switches_[s].iteration < iterations_) waiting.push_back(gpus_ + static_cast<Rank>(s));
    throwIfStuck(waiting);
    // Every rank ends when the rank that stands for it does.
    for (Rank rank = simulated_; rank < gpus_; ++rank)
      record_.end[static_cast<std::size_t>(rank)] = record_.end[static_cast<std::size_t>(platform_.representative(rank))];
    if (timeline_) timeline_->spans.insert(timeline_->spans.end(), spans_.begin(), spans_.end());
    return summarizeIterations(record_, plan_, steps_);
  }

  void ended(std::uint64_t tag) override {
    const auto rank = static_cast<Rank>(tag & 0xffffffffu);
    switch (static_cast<Wake>(tag >> 56)) {
      case Wake::ComputeDone: phaseDone(rank); break;
      case Wake::IterationOverheadDone: beginForward(rank); break;
      case Wake::TickCome: afterTick(rank); break;
      case Wake::AllreduceOverheadDone: beginCollective(rank); break;
    }
  }

  void programEnded(Rank rank) override {
    if (rank >= gpus_) {
      switchProgramEnded(rank);
      return;
    }
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.contention >= 0) simulation_.cancel(state.contention);
    state.contention = -1;
    const PlannedCollective& collective = steps_.collectives[state.collective];
    const std::size_t at = static_cast<std::size_t>(state.iteration) * count_ + state.collective;
    record_.collectiveEnd[at] = std::max(record_.collectiveEnd[at], simulation_.now());
    if (timeline_ && state.iteration == 0) {
      const std::size_t s = collectives_.scheduleIndex(collective);
      const double bytes = collectiveBytes(plan_, collective);
      spans_.push_back(collectiveSpan(group_, rank, toString(collective.kind), plannedCollectiveName(steps_.parallelism, collective, bytes),
                                      collective.unit, bytes, collectives_.algorithms[s].label(), *state.program, state.collectiveFrom,
                                      simulation_.now()));
    }
    state.program.reset();
    state.communicating = false;
    ++state.collective;
    if (state.computeWaits) {
      state.computeWaits = false;
      runPhase(rank);
    }
    nextCollective(rank);
  }

 private:
  // A rank's compute and communication, within its current iteration: both sides count what the other has
  // ended, as the SimGrid engine's semaphores do.
  struct RankState {
    double timeFactor = 1;
    double factor = 1;
    double iterationStart = 0;
    std::vector<double> phaseEndAt;
    int iteration = 0;
    bool finished = false;
    // Compute: the phase running or waiting (phases.size(): all done), and whether it waits for a collective.
    std::size_t phase = 0;
    double phaseFrom = 0;
    bool computeWaits = false;
    int phasesEnded = kIterationStart - 1;  // the last phase ended; kIterationStart once the iteration started
    // Communication: the collective running or next, and whether one runs.
    std::size_t collective = 0;
    bool communicating = false;
    double collectiveFrom = 0;
    FluidSimulation::ActivityHandle contention = -1;
    std::unique_ptr<Program> program;
  };

  // Compute: the iteration's phases one by one, each once the collective it waits for has ended; the
  // iteration once its last phase and last collective have.
  void startIteration(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.iteration == iterations_) {
      state.finished = true;
      record_.end[static_cast<std::size_t>(rank)] = simulation_.now();
      return;
    }
    if (effects_.iterationOverheadSeconds > 0) {
      simulation_.at(simulation_.now() + effects_.iterationOverheadSeconds, this, tagOf(Wake::IterationOverheadDone, rank));
    } else {
      beginForward(rank);
    }
  }

  void beginForward(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    state.iterationStart = simulation_.now();
    state.factor = state.timeFactor * effects_.computeFactor(gpus_, state.iteration, rank);
    state.phase = 0;
    state.phasesEnded = kIterationStart;
    state.collective = 0;
    nextCollective(rank);
    runPhase(rank);
  }

  // Starts the current phase once what it waits for has ended (the iteration's end after the last phase),
  // its execution, or for a phase of no time its end at once.
  void runPhase(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.phase == steps_.phases.size()) {
      if (state.collective < count_) {
        state.computeWaits = true;
        return;
      }
      ++state.iteration;
      startIteration(rank);
      return;
    }
    const ComputePhase& phase = steps_.phases[state.phase];
    if (phase.waitsFor >= 0 && state.collective <= static_cast<std::size_t>(phase.waitsFor)) {
      state.computeWaits = true;
      return;
    }
    state.phaseFrom = simulation_.now();
    if (phase.seconds > 0) {
      const FluidSimulation::ResourceId core[] = {platform_.computeHost(rank)};
      simulation_.start(phase.seconds * state.factor, 0, core, 1, 1, this, tagOf(Wake::ComputeDone, rank));
    } else {
      phaseDone(rank);
    }
  }

  void phaseDone(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    const ComputePhase& phase = steps_.phases[state.phase];
    // As the SimGrid engine records them: phases of no time are no span, but the last (the optimizer) always is.
    if (timeline_ && state.iteration == 0 && (phase.seconds > 0 || state.phase == lastPhase_))
      spans_.push_back({group_, rank, "compute", phase.name, state.phaseFrom, simulation_.now(), {}});
    state.phaseEndAt[state.phase] = simulation_.now();
    state.phasesEnded = static_cast<int>(state.phase);
    ++state.phase;
    nextCollective(rank);
    runPhase(rank);
  }

  // Communication: the next collective once the phase it is ready after has ended, after Horovod's tick
  // and the overhead.
  void nextCollective(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.communicating || state.collective == count_ || state.iteration == iterations_) return;
    const PlannedCollective& collective = steps_.collectives[state.collective];
    if (collective.readyAfter > state.phasesEnded) return;
    state.communicating = true;
    // With Horovod's cycles, a bucket full before the last allreduce ended starts at once; one GPU calls no
    // collective and waits for no tick.
    if (plan_.cycleSeconds() > 0 && gpus_ > 1 && collective.readyAfter >= 0) {
      const double full = state.phaseEndAt[static_cast<std::size_t>(collective.readyAfter)];
      const double tick = state.iterationStart + plan_.nextTick(full - state.iterationStart);
      if (tick > simulation_.now()) {
        simulation_.at(tick, this, tagOf(Wake::TickCome, rank));
        return;
      }
    }
    afterTick(rank);
  }

  void afterTick(Rank rank) {
    if (collectiveOverhead_ > 0) {
      simulation_.at(simulation_.now() + collectiveOverhead_, this, tagOf(Wake::AllreduceOverheadDone, rank));
    } else {
      beginCollective(rank);
    }
  }

  void beginCollective(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    state.collectiveFrom = simulation_.now();
    const std::size_t at = static_cast<std::size_t>(state.iteration) * count_ + state.collective;
    record_.collectiveStart[at] = std::min(record_.collectiveStart[at], state.collectiveFrom);
    if (effects_.overlapSlowdown > 0) {
      const FluidSimulation::ResourceId core[] = {platform_.computeHost(rank)};
      // Never ends before the collective: its listener is never called.
      state.contention = simulation_.start(kContentionSeconds, 0, core, effects_.overlapSlowdown, 1, this, 0);
    }
    const Schedule& schedule = scheduleOf(state.collective);
    state.program = std::make_unique<Program>(schedule.program(rank));
    runs_.start(*state.program, schedule.spec().wireBytesPerByte());
  }

  // The schedule the iteration's collective `c` runs (schedules_, evened where the buckets were).
  const Schedule& scheduleOf(std::size_t c) const { return schedules_[collectives_.scheduleIndex(steps_.collectives[c])]; }

  // A switch (CollectiveSpec::switches) runs its part of every collective that reduces in it, in the order
  // the GPUs run them, iteration after iteration: it only answers their loads and stores, so it needs no
  // cue but their messages, and a stream's messages match in order whichever side posts first.
  struct SwitchState {
    int iteration = 0;
    std::size_t collective = 0;  // the next to run, or running
    std::unique_ptr<Program> program;
  };

  void nextSwitchProgram(Rank participant) {
    SwitchState& state = switches_[static_cast<std::size_t>(participant - gpus_)];
    for (; state.iteration < iterations_; ++state.iteration, state.collective = 0)
      for (; state.collective < count_; ++state.collective) {
        const Schedule& schedule = scheduleOf(state.collective);
        if (schedule.spec().switches == 0) continue;
        state.program = std::make_unique<Program>(schedule.program(participant));
        runs_.start(*state.program, schedule.spec().wireBytesPerByte());
        return;
      }
  }

  void switchProgramEnded(Rank participant) {
    SwitchState& state = switches_[static_cast<std::size_t>(participant - gpus_)];
    state.program.reset();
    ++state.collective;
    nextSwitchProgram(participant);
  }

  const IterationPlan& plan_;
  const IterationCollectives& collectives_;  // its steps, and what runs each schedule, for the timeline
  const IterationSteps& steps_;
  const std::vector<Schedule>& schedules_;  // collectives_.schedules, or those evened
  const IterationEffects& effects_;
  StepPlatform& platform_;
  FluidSimulation& simulation_;
  const int gpus_;
  const int simulated_;  // ranks 0 .. simulated_-1, each standing for the ranks congruent to it
  const int iterations_;
  const std::size_t count_;      // collectives per iteration
  const std::size_t lastPhase_;  // the optimizer
  const double collectiveOverhead_;
  IterationTimeline* timeline_;
  const std::string& group_;
  std::vector<RankState> ranks_;
  std::vector<SwitchState> switches_;  // participant gpus_ + s
  ProgramRuns runs_;
  IterationRecord record_;
  std::vector<TimelineSpan> spans_;
};

// Whether every rank computes as the rank standing for it does: a GPU's static factor or jitter drawn per
// rank makes them differ.
bool computesAlike(const IterationEffects& effects, int gpus, const RankSymmetry& symmetry) {
  const int iterations = effects.iterationsFor(gpus);
  for (Rank rank = symmetry.period; rank < gpus; ++rank) {
    const Rank standing = symmetry.representative(rank);
    if (effects.gpuTimeFactor(gpus, rank) != effects.gpuTimeFactor(gpus, standing)) return false;
    for (int i = 0; i < iterations; ++i)
      if (effects.computeFactor(gpus, i, rank) != effects.computeFactor(gpus, i, standing)) return false;
  }
  return true;
}

// A bucket's schedule rebuilt on the element count nearest its own at which its algorithm claims a
// translation: the nearest multiple of the ranks times k, for the smallest k (1 to kMaxChannels) that
// claims one (a ring's blocks of one size; k = C for C of NCCL's rings side by side, each on its part).
// Nullopt where none does, or where the bucket has fewer elements than that multiple: its blocks of none
// and one element are messages and no messages, which evening would not keep.
std::optional<Schedule> evenedSchedule(const Schedule& schedule, const AlgorithmChoice& algorithm) {
  if (!algorithm.algorithm->translationPeriod) return std::nullopt;  // claims none at any size
  const CollectiveSpec& spec = schedule.spec();
  for (Elements k = 1; k <= kMaxChannels; ++k) {
    const Elements unit = k * spec.ranks;
    if (spec.elements < unit) return std::nullopt;
    const Elements evened = (spec.elements + unit / 2) / unit * unit;
    std::optional<Schedule> rebuilt;
    try {
      rebuilt = makeSchedule(*algorithm.algorithm, {spec.kind, spec.ranks, evened, spec.elementBytes}, algorithm.options);
    } catch (const InvalidArgument&) {
      return std::nullopt;  // the options do not fit the evened bucket (more chunks than a program may hold): as given
    }
    // A schedule over groups (makeGroupedSchedule) is not what makeSchedule rebuilds: never replaced.
    if (rebuilt->description() != schedule.description()) return std::nullopt;
    if (rebuilt->translationPeriod() > 0) return rebuilt;
  }
  return std::nullopt;
}

// The relative change of a bucket's elements from `from` to `to`.
double changeOf(const Schedule& from, const Schedule& to) {
  return std::abs(static_cast<double>(to.spec().elements - from.spec().elements)) / static_cast<double>(from.spec().elements);
}

// Bucket schedules with every one that claims no translation evened (evenedSchedule); `change` gets the
// largest relative change. Nullopt if such a bucket cannot be evened.
std::optional<std::vector<Schedule>> evenedBuckets(const IterationCollectives& buckets, double& change) {
  std::vector<Schedule> schedules = buckets.schedules;
  change = 0;
  for (std::size_t b = 0; b < schedules.size(); ++b) {
    if (schedules[b].translationPeriod() > 0) continue;
    std::optional<Schedule> evened = evenedSchedule(schedules[b], buckets.algorithms[b]);
    if (!evened) return std::nullopt;
    change = std::max(change, changeOf(schedules[b], *evened));
    schedules[b] = std::move(*evened);
  }
  return schedules;
}

// The schedules a simulation runs, and the symmetry it simulates them under (sim/step/step_iteration.hpp).
struct Quotient {
  std::vector<Schedule> schedules;
  std::optional<RankSymmetry> symmetry;
  double evenedChange = 0;
};

Quotient quotientOf(const IterationCollectives& buckets, const PlatformDescription& platform,
                    const IterationEffects& effects, bool exploit, BucketEvening evening) {
  const int gpus = buckets.gpus;
  if (buckets.participants() != platform.hosts())
    throw std::invalid_argument("bucket schedules for another GPU or switch count than the platform's");
  Quotient quotient{buckets.schedules, std::nullopt, 0};
  if (!exploit) return quotient;
  quotient.symmetry = findRankSymmetry(quotient.schedules, platform);
  if (!quotient.symmetry && evening == BucketEvening::Allow) {
    double change = 0;
    std::optional<std::vector<Schedule>> evened = evenedBuckets(buckets, change);
    if (evened && (quotient.symmetry = findRankSymmetry(*evened, platform))) {
      quotient.schedules = std::move(*evened);
      quotient.evenedChange = change;
    }
  }
  if (quotient.symmetry && !computesAlike(effects, gpus, *quotient.symmetry))
    return Quotient{buckets.schedules, std::nullopt, 0};
  return quotient;
}

}  // namespace

BucketEvening eveningFor(const IterationCollectives& buckets) {
  for (std::size_t b : largestScheduleOfEachAlgorithm(buckets))
    if (static_cast<double>(buckets.schedules[b].program(0).size()) * buckets.gpus > kExactStepsLimit) return BucketEvening::Allow;
  double change = 0;
  if (!evenedBuckets(buckets, change) || change > kEvenedBucketTolerance) return BucketEvening::Forbid;
  return BucketEvening::Allow;
}

int simulatedRanks(const IterationCollectives& buckets, const PlatformDescription& platform,
                   const IterationEffects& effects, BucketEvening evening) {
  const Quotient quotient = quotientOf(buckets, platform, effects, true, evening);
  return quotient.symmetry ? quotient.symmetry->period : platform.hosts();  // the switches' too
}

IterationSimulation simulateIteration(const IterationPlan& plan, const IterationCollectives& buckets,
                                      const PlatformDescription& platform, const IterationEffects& effects,
                                      IterationTimeline* timeline, const std::string& group, RankSymmetryUse use,
                                      BucketEvening evening) {
  Quotient quotient = quotientOf(buckets, platform, effects, use == RankSymmetryUse::Exploit && !timeline, evening);
  StepPlatform stepPlatform(platform, std::move(quotient.symmetry));
  Iterations iterations(plan, buckets, quotient.schedules, effects, stepPlatform, timeline, group);
  iterations.start();
  stepPlatform.simulation().run();
  IterationSimulation result = iterations.result();
  result.evenedBucketChange = quotient.evenedChange;
  return result;
}

}  // namespace ddl::step
