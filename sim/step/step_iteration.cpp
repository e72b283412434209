#include "sim/step/step_iteration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "algorithms/collectives/registry.hpp"
#include "sim/engine/stuck_ranks.hpp"
#include "sim/step/step_program_runs.hpp"

namespace ddl::step {
namespace {

// What an event of a rank is, in its tag's top byte; the rank is the rest.
enum class Wake : std::uint64_t { ComputeDone = 1, IterationOverheadDone, TickCome, AllreduceOverheadDone };

std::uint64_t tagOf(Wake wake, Rank rank) { return (static_cast<std::uint64_t>(wake) << 56) | static_cast<std::uint32_t>(rank); }

class Iterations final : public ProgramRuns::Owner, public FluidSimulation::Listener {
 public:
  Iterations(const IterationPlan& plan, const std::vector<Schedule>& schedules, const BucketAlgorithms& algorithms,
             const IterationEffects& effects, StepPlatform& platform, IterationTimeline* timeline, const std::string& group)
      : plan_(plan), schedules_(schedules), algorithms_(algorithms), effects_(effects), platform_(platform), simulation_(platform.simulation()),
        gpus_(platform.ranks()), simulated_(platform.simulatedRanks()), iterations_(effects.iterationsFor(gpus_)), buckets_(plan.buckets().size()),
        phases_(plan.computePhases()), allreduceOverhead_(gpus_ > 1 ? effects.allreduceOverheadSeconds : 0),
        timeline_(timeline), group_(group), ranks_(static_cast<std::size_t>(gpus_)),
        runs_(platform, plan.workload().elementBytes, *this) {
    record_.iterations = iterations_;
    record_.end.assign(static_cast<std::size_t>(gpus_), 0);
    record_.bucketStart.assign(buckets_ * static_cast<std::size_t>(iterations_), std::numeric_limits<double>::infinity());
    record_.bucketEnd.assign(buckets_ * static_cast<std::size_t>(iterations_), 0);
    for (Rank rank = 0; rank < gpus_; ++rank) {
      ranks_[static_cast<std::size_t>(rank)].gpuFactor = effects.gpuTimeFactor(gpus_, rank);
      ranks_[static_cast<std::size_t>(rank)].bucketFullAt.assign(buckets_, 0);
    }
  }

  void start() {
    for (Rank rank = 0; rank < simulated_; ++rank) startIteration(rank);
  }

  IterationSimulation result() {
    std::vector<Rank> waiting;
    for (Rank rank = 0; rank < simulated_; ++rank)
      if (!ranks_[static_cast<std::size_t>(rank)].finished) waiting.push_back(rank);
    throwIfStuck(waiting);
    // Every rank ends when the rank that stands for it does.
    for (Rank rank = simulated_; rank < gpus_; ++rank)
      record_.end[static_cast<std::size_t>(rank)] = record_.end[static_cast<std::size_t>(platform_.representative(rank))];
    if (timeline_) timeline_->spans.insert(timeline_->spans.end(), spans_.begin(), spans_.end());
    return summarizeIterations(record_, plan_, gpus_);
  }

  void ended(std::uint64_t tag) override {
    const auto rank = static_cast<Rank>(tag & 0xffffffffu);
    switch (static_cast<Wake>(tag >> 56)) {
      case Wake::ComputeDone: phaseDone(rank); break;
      case Wake::IterationOverheadDone: beginForward(rank); break;
      case Wake::TickCome: afterTick(rank); break;
      case Wake::AllreduceOverheadDone: beginAllreduce(rank); break;
    }
  }

  void programEnded(Rank rank) override {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.contention >= 0) simulation_.cancel(state.contention);
    state.contention = -1;
    const std::size_t b = state.bucket;
    const std::size_t at = static_cast<std::size_t>(state.commIteration) * buckets_ + b;
    record_.bucketEnd[at] = std::max(record_.bucketEnd[at], simulation_.now());
    if (timeline_ && state.commIteration == 0)
      spans_.push_back(allreduceSpan(group_, rank, b,
                                     static_cast<double>(plan_.buckets()[b].elements.count) * plan_.workload().elementBytes,
                                     algorithms_[b].label(), *state.program, state.allreduceFrom, simulation_.now()));
    state.program.reset();
    state.communicating = false;
    if (++state.bucket == buckets_) {
      state.bucket = 0;
      ++state.commIteration;
      ++state.communicationDone;
      if (state.waitsForCommunication) {
        state.waitsForCommunication = false;
        --state.communicationDone;
        beginOptimizer(rank);
      }
    }
    nextAllreduce(rank);
  }

 private:
  struct RankState {
    double gpuFactor = 1;
    double factor = 1;
    double iterationStart = 0;
    std::vector<double> bucketFullAt;
    // Compute: its iteration, and the phase running (0 .. buckets: backward phases; buckets + 1: the optimizer).
    int iteration = 0;
    std::size_t phase = 0;
    double phaseFrom = 0;
    bool waitsForCommunication = false;
    bool finished = false;
    // Communication: its iteration and bucket, and what the semaphores of the SimGrid engine count.
    int commIteration = 0;
    std::size_t bucket = 0;
    int bucketsFull = 0;
    int communicationDone = 0;
    bool communicating = false;
    double allreduceFrom = 0;
    FluidSimulation::ActivityHandle contention = -1;
    std::unique_ptr<Program> program;
  };

  void recordSpan(int iteration, Rank rank, const char* lane, std::string name, double from) {
    if (timeline_ && iteration == 0) spans_.push_back({group_, rank, lane, std::move(name), from, simulation_.now(), {}});
  }

  // Compute: forward and backward phase by phase, then (once the allreduces are done) the optimizer.
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
    state.factor = state.gpuFactor * effects_.computeFactor(gpus_, state.iteration, rank);
    state.phase = 0;
    runPhase(rank);
  }

  // Starts the current phase's execution, or, for a phase of no time, ends it at once.
  void runPhase(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    const double seconds = state.phase <= buckets_ ? phases_[state.phase] : plan_.workload().optimizerSeconds;
    state.phaseFrom = simulation_.now();
    if (seconds > 0) {
      const FluidSimulation::ResourceId core[] = {platform_.computeHost(rank)};
      simulation_.start(seconds * state.factor, 0, core, 1, 1, this, tagOf(Wake::ComputeDone, rank));
    } else {
      phaseDone(rank);
    }
  }

  void phaseDone(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    const std::size_t phase = state.phase;
    const double seconds = phase <= buckets_ ? phases_[phase] : plan_.workload().optimizerSeconds;
    // As the SimGrid engine records them: backward phases of no time are no span; the optimizer always is.
    if (seconds > 0 || phase > buckets_) recordSpan(state.iteration, rank, "compute", computePhaseName(phase, buckets_), state.phaseFrom);
    if (phase < buckets_) {
      state.bucketFullAt[phase] = simulation_.now();
      ++state.bucketsFull;
      nextAllreduce(rank);
      ++state.phase;
      runPhase(rank);
    } else if (phase == buckets_) {
      state.phase = buckets_ + 1;
      if (state.communicationDone > 0) {
        --state.communicationDone;
        beginOptimizer(rank);
      } else {
        state.waitsForCommunication = true;
      }
    } else {
      ++state.iteration;
      startIteration(rank);
    }
  }

  void beginOptimizer(Rank rank) {
    ranks_[static_cast<std::size_t>(rank)].phase = buckets_ + 1;
    runPhase(rank);
  }

  // Communication: the next bucket's allreduce once it is full, after Horovod's tick and the overhead.
  void nextAllreduce(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    if (state.communicating || state.bucketsFull == 0 || state.commIteration == iterations_) return;
    --state.bucketsFull;
    state.communicating = true;
    // With Horovod's cycles, a bucket full before the last allreduce ended starts at once; one GPU calls no
    // allreduce and waits for no tick.
    if (plan_.cycleSeconds() > 0 && gpus_ > 1) {
      const double tick = state.iterationStart + plan_.nextTick(state.bucketFullAt[state.bucket] - state.iterationStart);
      if (tick > simulation_.now()) {
        simulation_.at(tick, this, tagOf(Wake::TickCome, rank));
        return;
      }
    }
    afterTick(rank);
  }

  void afterTick(Rank rank) {
    if (allreduceOverhead_ > 0) {
      simulation_.at(simulation_.now() + allreduceOverhead_, this, tagOf(Wake::AllreduceOverheadDone, rank));
    } else {
      beginAllreduce(rank);
    }
  }

  void beginAllreduce(Rank rank) {
    RankState& state = ranks_[static_cast<std::size_t>(rank)];
    state.allreduceFrom = simulation_.now();
    const std::size_t at = static_cast<std::size_t>(state.commIteration) * buckets_ + state.bucket;
    record_.bucketStart[at] = std::min(record_.bucketStart[at], state.allreduceFrom);
    if (effects_.overlapSlowdown > 0) {
      const FluidSimulation::ResourceId core[] = {platform_.computeHost(rank)};
      // Never ends before the collective: its listener is never called.
      state.contention = simulation_.start(kContentionSeconds, 0, core, effects_.overlapSlowdown, 1, this, 0);
    }
    state.program = std::make_unique<Program>(schedules_[state.bucket].program(rank));
    runs_.start(*state.program);
  }

  const IterationPlan& plan_;
  const std::vector<Schedule>& schedules_;
  const BucketAlgorithms& algorithms_;  // what runs each bucket, for the timeline
  const IterationEffects& effects_;
  StepPlatform& platform_;
  FluidSimulation& simulation_;
  const int gpus_;
  const int simulated_;  // ranks 0 .. simulated_-1, each standing for the ranks congruent to it
  const int iterations_;
  const std::size_t buckets_;
  const std::vector<double> phases_;
  const double allreduceOverhead_;
  IterationTimeline* timeline_;
  const std::string& group_;
  std::vector<RankState> ranks_;
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

// Bucket schedules with every one that claims no translation rebuilt on the nearest multiple of `gpus`
// elements; `change` gets the largest relative change. Nullopt if such a bucket has fewer elements than
// GPUs: its blocks of none and one element are messages and no messages, which evening would not keep.
std::optional<std::vector<Schedule>> evenedBuckets(const IterationPlan& plan, const BucketAllreduces& buckets, double& change) {
  const BucketAlgorithms& algorithms = buckets.algorithms;
  const int gpus = buckets.gpus;
  std::vector<Schedule> schedules = buckets.schedules;
  change = 0;
  for (std::size_t b = 0; b < schedules.size(); ++b) {
    if (schedules[b].translationPeriod() > 0) continue;
    const Elements elements = plan.buckets()[b].elements.count;
    if (elements < gpus) return std::nullopt;
    const Elements evened = (elements + gpus / 2) / gpus * gpus;
    if (evened == elements) continue;
    schedules[b] = makeSchedule(*algorithms[b].algorithm, {CollectiveKind::Allreduce, gpus, evened, plan.workload().elementBytes},
                                algorithms[b].options);
    change = std::max(change, std::abs(static_cast<double>(evened - elements)) / static_cast<double>(elements));
  }
  return schedules;
}

// The schedules a simulation runs, and the symmetry it simulates them under (sim/step/step_iteration.hpp).
struct Quotient {
  std::vector<Schedule> schedules;
  std::optional<RankSymmetry> symmetry;
  double evenedChange = 0;
};

Quotient quotientOf(const IterationPlan& plan, const BucketAllreduces& buckets, const PlatformDescription& platform,
                    const IterationEffects& effects, bool exploit, BucketEvening evening) {
  const int gpus = platform.hosts();
  if (buckets.gpus != gpus) throw std::invalid_argument("bucket schedules for another GPU count than the platform's");
  Quotient quotient{buckets.schedules, std::nullopt, 0};
  if (!exploit) return quotient;
  quotient.symmetry = findRankSymmetry(quotient.schedules, platform);
  if (!quotient.symmetry && evening == BucketEvening::Allow) {
    double change = 0;
    std::optional<std::vector<Schedule>> evened = evenedBuckets(plan, buckets, change);
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

BucketEvening eveningFor(const IterationPlan& plan, const BucketAllreduces& buckets) {
  for (std::size_t b : largestBucketOfEachAlgorithm(plan, buckets.algorithms))
    if (static_cast<double>(buckets.schedules[b].program(0).size()) * buckets.gpus > kExactHeldStepsLimit) return BucketEvening::Allow;
  return BucketEvening::Forbid;
}

int simulatedRanks(const IterationPlan& plan, const BucketAllreduces& buckets, const PlatformDescription& platform,
                   const IterationEffects& effects, BucketEvening evening) {
  const Quotient quotient = quotientOf(plan, buckets, platform, effects, true, evening);
  return quotient.symmetry ? quotient.symmetry->period : platform.hosts();
}

IterationSimulation simulateIteration(const IterationPlan& plan, const BucketAllreduces& buckets,
                                      const PlatformDescription& platform, const IterationEffects& effects,
                                      IterationTimeline* timeline, const std::string& group, RankSymmetryUse use,
                                      BucketEvening evening) {
  Quotient quotient = quotientOf(plan, buckets, platform, effects, use == RankSymmetryUse::Exploit && !timeline, evening);
  StepPlatform stepPlatform(platform, std::move(quotient.symmetry));
  Iterations iterations(plan, quotient.schedules, buckets.algorithms, effects, stepPlatform, timeline, group);
  iterations.start();
  stepPlatform.simulation().run();
  IterationSimulation result = iterations.result();
  result.evenedBucketChange = quotient.evenedChange;
  return result;
}

}  // namespace ddl::step
