// Each effect of algorithms/training/iteration_effects.hpp, alone, against its closed form: jitter as the
// expected maximum of N lognormal draws (within the Monte Carlo error), the speed spread as the slowest
// GPU's factor, the overlap slowdown as the compute lost during the overlapped allreduces, and the
// overheads as the time they add. With every effect off the simulation is the one without effects.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "algorithms/collectives/registry.hpp"
#include "sim/simgrid/iteration_on_simgrid.hpp"
#include "tests/sim/dedicated_link_platform.hpp"

namespace ddl {
namespace {

// Forward, a backward of a few tensors, and an optimizer: about 30 ms.
TrainingWorkload workload(double optimizerSeconds = 0.001) {
  TrainingWorkload result;
  result.model = "test";
  result.forwardSeconds = 0.010;
  result.optimizerSeconds = optimizerSeconds;
  for (int i = 0; i < 8; ++i) result.gradients.push_back({"layer" + std::to_string(i) + ".weight", 500'000, 0.0025});
  return result;
}

const AlgorithmDefinition& ring() { return findAlgorithm(CollectiveKind::Allreduce, "ring"); }

// Links so fast and short that communication takes no time worth counting.
DedicatedLinkPlatform instantLinks(int ranks) { return DedicatedLinkPlatform(CostModel::uniform(ranks, {0, 1e-18}, 0)); }
DedicatedLinkPlatform ethernet(int ranks) { return DedicatedLinkPlatform(CostModel::uniform(ranks, {5e-6, 1 / 1.25e9}, 1 / 50e9)); }

// E[max of n lognormals of mean 1 and this coefficient of variation] = ∫ (1 - F(x)^n) dx, by the trapezoid rule.
double expectedMaximumOfLognormals(int n, double cv) {
  const double sigma = std::sqrt(std::log1p(cv * cv));
  const double mu = -sigma * sigma / 2;
  const double step = 1e-6;
  double integral = 0;
  for (double x = step / 2; x < 2; x += step) {
    const double cdf = 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::sqrt(2.0)));
    integral += (1 - std::pow(cdf, n)) * step;
  }
  return integral;
}

TEST(IterationEffects, AllOffSimulateTheIterationWithoutEffects) {
  const IterationPlan plan(workload(), 1 << 20);
  const IterationEffects off;
  ASSERT_FALSE(off.any());
  EXPECT_EQ(off.iterationsFor(1024), 1);
  const IterationSimulation plain = simulateIteration(plan, ring(), {}, ethernet(8));
  const IterationSimulation withOff = simulateIteration(plan, ring(), {}, ethernet(8), off);
  // Equal but for the rounding of times taken from a SimGrid clock that runs on from one engine to the next.
  EXPECT_NEAR(withOff.iterationSeconds, plain.iterationSeconds, 1e-12);
  ASSERT_EQ(withOff.allreduces.size(), plain.allreduces.size());
  for (std::size_t b = 0; b < plain.allreduces.size(); ++b)
    EXPECT_NEAR(withOff.allreduces[b].seconds, plain.allreduces[b].seconds, 1e-12);
}

TEST(IterationEffects, JitterMakesTheIterationTheExpectedMaximumOfTheRanksDraws) {
  // No optimizer, so each iteration ends when the slowest rank's compute does and the next starts there.
  const IterationPlan plan(workload(0), 1LL << 40);
  const double compute = plan.workload().computeSeconds();
  for (int ranks : {2, 8}) {
    IterationEffects jitter;
    jitter.computeJitter = 0.05;
    jitter.iterations = 400;
    const IterationSimulation simulated = simulateIteration(plan, ring(), {}, instantLinks(ranks), jitter);
    EXPECT_EQ(simulated.iterations, 400);
    // The mean of 400 maxima: its standard error is at most the draws' σ over √400, cv/20 of the compute.
    const double expected = compute * expectedMaximumOfLognormals(ranks, jitter.computeJitter);
    const double standardError = compute * jitter.computeJitter / std::sqrt(400.0);
    EXPECT_NEAR(simulated.iterationSeconds, expected, 4 * standardError) << ranks << " ranks";
    // And clearly more than the compute alone: the maximum of 8 draws is about 1.4σ above the mean.
    if (ranks == 8) {
      EXPECT_GT(simulated.iterationSeconds, compute * (1 + jitter.computeJitter));
    }
  }
}

TEST(IterationEffects, TheSameSeedGivesTheSameIterationAndAnotherSeedAnother) {
  const IterationPlan plan(workload(), 1 << 20);
  IterationEffects jitter;
  jitter.computeJitter = 0.01;
  const double first = simulateIteration(plan, ring(), {}, ethernet(4), jitter).iterationSeconds;
  // Equal but for the rounding of a SimGrid clock that runs on from one engine to the next in this process
  // (ddlsim runs each point in a fresh process: tests/sim/ddlsim_simulate_cli_test.cpp checks the bytes).
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, ethernet(4), jitter).iterationSeconds, first, 1e-12);
  jitter.seed = 2;
  EXPECT_GT(std::abs(simulateIteration(plan, ring(), {}, ethernet(4), jitter).iterationSeconds - first), 1e-6);
}

TEST(IterationEffects, DrawsDependOnlyOnTheirCounters) {
  IterationEffects effects;
  effects.computeJitter = 0.1;
  effects.gpuSpeedSpread = 0.1;
  // A rank's draw is the same whatever else is drawn, and differs between ranks, iterations and GPU counts.
  EXPECT_EQ(effects.computeFactor(8, 3, 5), effects.computeFactor(8, 3, 5));
  EXPECT_NE(effects.computeFactor(8, 3, 5), effects.computeFactor(8, 3, 6));
  EXPECT_NE(effects.computeFactor(8, 3, 5), effects.computeFactor(8, 4, 5));
  EXPECT_NE(effects.computeFactor(8, 3, 5), effects.computeFactor(16, 3, 5));
  // A GPU keeps its speed at every scale.
  EXPECT_EQ(effects.gpuTimeFactor(8, 7), effects.gpuTimeFactor(64, 7));
  // The moments of many draws: jitter of mean 1 and σ 0.1, a spread of mean 1 and σ 0.1.
  const int n = 20000;
  double sum = 0, squares = 0, spreadSum = 0, spreadSquares = 0;
  for (int rank = 0; rank < n; ++rank) {
    const double f = effects.computeFactor(n, 0, rank);
    const double g = effects.gpuTimeFactor(n, rank);
    sum += f;
    squares += f * f;
    spreadSum += g;
    spreadSquares += g * g;
  }
  const double mean = sum / n, spreadMean = spreadSum / n;
  EXPECT_NEAR(mean, 1, 4 * 0.1 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(squares / n - mean * mean), 0.1, 0.003);
  EXPECT_NEAR(spreadMean, 1, 4 * 0.1 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(spreadSquares / n - spreadMean * spreadMean), 0.1, 0.003);
}

TEST(IterationEffects, SpreadMakesTheSlowestGpuSetThePace) {
  const IterationPlan plan(workload(0), 1LL << 40);
  const double compute = plan.workload().computeSeconds();
  IterationEffects spread;
  spread.gpuSpeedSpread = 0.03;
  for (int ranks : {4, 16}) {
    double slowest = 0;
    for (int rank = 0; rank < ranks; ++rank) slowest = std::max(slowest, spread.gpuTimeFactor(ranks, rank));
    EXPECT_NEAR(simulateIteration(plan, ring(), {}, instantLinks(ranks), spread).iterationSeconds, compute * slowest, 1e-9)
        << ranks << " ranks";
  }
  // One GPU alone is the baseline, a typical GPU, with no jitter to wait for.
  spread.computeJitter = 0.05;
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, instantLinks(1), spread).iterationSeconds, compute, 1e-12);
}

TEST(IterationEffects, AnEmpiricalSpreadDrawsOnlyItsFactorsAndEachOfThem) {
  IterationEffects empirical;
  empirical.gpuTimeFactors = {0.9, 1.0, 1.3};
  std::vector<int> seen(3, 0);
  for (int rank = 0; rank < 3000; ++rank) {
    const double factor = empirical.gpuTimeFactor(3000, rank);
    const auto at = std::find(empirical.gpuTimeFactors.begin(), empirical.gpuTimeFactors.end(), factor);
    ASSERT_NE(at, empirical.gpuTimeFactors.end()) << factor;
    ++seen[static_cast<std::size_t>(at - empirical.gpuTimeFactors.begin())];
  }
  for (int count : seen) EXPECT_NEAR(count, 1000, 4 * std::sqrt(3000 * (1.0 / 3) * (2.0 / 3)));
}

TEST(IterationEffects, AJobsTimeFactorIsOneJobOverAnotherAndSlowsEveryRankAndOneGpuAlone) {
  // The profile was one job of the machine, the job predicted another: a sample's factor is one measured
  // job's over another's, each pair equally likely, so a third of the samples draw the same job twice (1),
  // and a ratio and its inverse are equally likely.
  IterationEffects effects;
  effects.jobTimeFactors = {0.8, 1.0, 1.25};
  effects.gpuTimeFactors = {0.9, 1.1};
  EXPECT_EQ(effects.jobTimeFactor, 1) << "the central run is the profile's own job";
  const std::vector<double> ratios = {0.64, 0.8, 1.0, 1.25, 1.5625};
  int same = 0, slower = 0, faster = 0;
  constexpr int kSamples = 9000;
  for (std::uint64_t sample = 0; sample < kSamples; ++sample) {
    const IterationEffects drawn = sampleEffects(effects, {}, sample);
    const double factor = drawn.jobTimeFactor;
    ASSERT_TRUE(std::any_of(ratios.begin(), ratios.end(), [&](double r) { return std::abs(r - factor) < 1e-12; })) << factor;
    same += factor == 1;
    slower += factor > 1;
    faster += factor < 1;
    EXPECT_EQ(drawn.rankTimeFactor(1, 0), factor) << "one GPU alone runs at its job's speed too";
    EXPECT_EQ(drawn.rankTimeFactor(8, 5), factor * drawn.gpuTimeFactor(8, 5));
    EXPECT_EQ(sampleEffects(effects, {}, sample).jobTimeFactor, factor) << "a sample is a function of its number";
    EXPECT_EQ(sampleEffects(effects, {}, sample, true, false).jobTimeFactor, 1) << "not drawn unless asked";
  }
  const double sigma = std::sqrt(kSamples * (1.0 / 3) * (2.0 / 3));
  EXPECT_NEAR(same, kSamples / 3.0, 4 * sigma);
  EXPECT_NEAR(slower, faster, 8 * sigma);
  IterationEffects none;
  EXPECT_EQ(sampleEffects(none, {}, 7).jobTimeFactor, 1) << "no factors, nothing to draw";
}

TEST(IterationEffects, SlowdownCostsTheComputeThatRunsWhileAnAllreduceDoes) {
  // Two buckets: the first is allreduced while the second's backward computes, long enough to cover it;
  // the second after backward, with no compute left to slow. At 1/(1+s) speed for the first allreduce's
  // duration A, the compute loses A·s/(1+s).
  const IterationPlan plan(workload(), 2'000'000 * 4);
  ASSERT_EQ(plan.buckets().size(), 2u);
  const IterationSimulation ideal = simulateIteration(plan, ring(), {}, ethernet(4));
  const double firstAllreduce = ideal.allreduces[0].seconds;
  ASSERT_LT(firstAllreduce, plan.computePhases()[1]);  // it overlaps compute from start to end
  for (double s : {0.189, 1.0}) {
    IterationEffects slowdown;
    slowdown.overlapSlowdown = s;
    const double slowed = simulateIteration(plan, ring(), {}, ethernet(4), slowdown).iterationSeconds;
    EXPECT_NEAR(slowed - ideal.iterationSeconds, firstAllreduce * s / (1 + s), 1e-9) << "s = " << s;
  }
  // Without overlap the allreduces run while nothing computes, and cost nothing more.
  const IterationPlan after(workload(), 2'000'000 * 4, false);
  IterationEffects slowdown;
  slowdown.overlapSlowdown = 1;
  EXPECT_NEAR(simulateIteration(after, ring(), {}, ethernet(4), slowdown).iterationSeconds,
              simulateIteration(after, ring(), {}, ethernet(4)).iterationSeconds, 1e-12);
}

TEST(IterationEffects, OverheadsAddTheirTime) {
  // After backward, every allreduce in turn: each bucket's overhead adds to the iteration.
  const IterationPlan plan(workload(), 1 << 20, false);
  const double ideal = simulateIteration(plan, ring(), {}, ethernet(4)).iterationSeconds;
  IterationEffects overheads;
  overheads.allreduceOverheadSeconds = 50e-6;
  overheads.iterationOverheadSeconds = 2e-3;
  const auto buckets = static_cast<double>(plan.buckets().size());
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, ethernet(4), overheads).iterationSeconds,
              ideal + buckets * 50e-6 + 2e-3, 1e-12);
  // One GPU calls no allreduce, and pays the per-iteration overhead only.
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, ethernet(1), overheads).iterationSeconds,
              plan.workload().computeSeconds() + 2e-3, 1e-12);
}

TEST(IterationEffects, SeveralIterationsWhereDrawsMatterAndOneWhereNot) {
  IterationEffects effects;
  effects.overlapSlowdown = 0.2;
  EXPECT_EQ(effects.iterationsFor(8), 1);
  effects.computeJitter = 0.002;
  EXPECT_EQ(effects.iterationsFor(1), 1);  // one GPU's mean is known: no draws
  EXPECT_EQ(effects.computeFactor(1, 5, 0), 1);
  EXPECT_EQ(effects.iterationsFor(2), kMaxIterations);
  EXPECT_EQ(effects.iterationsFor(8), kDrawsPerPoint / 8);
  EXPECT_EQ(effects.iterationsFor(256), 1);
  effects.iterations = 3;
  EXPECT_EQ(effects.iterationsFor(256), 3);
}

TEST(IterationEffects, HorovodStartsEachAllreduceAtTheCycleTickAfterItsBucketIsFull) {
  // Tensors ready every 2.5 ms after a 10 ms forward, at 12.5, 15, ... 30 ms; with a 4 ms cycle those of
  // one cycle fuse, and are allreduced at its tick: 16, 20, 24, 28 and 32 ms.
  const GradientFusion horovod{FusionPolicy::Horovod, 64 << 20, 1, 4e-3};
  const IterationPlan plan(workload(), horovod);
  ASSERT_EQ(plan.buckets().size(), 5u);
  EXPECT_DOUBLE_EQ(plan.nextTick(0.030), 0.032);
  // With no communication time the optimizer starts at the last tick, 2 ms after backward ends.
  const double expected = 0.032 + 0.001;
  EXPECT_NEAR(timeIteration(plan, std::vector<double>(5, 0)).iterationSeconds, expected, 1e-12);
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, instantLinks(4)).iterationSeconds, expected, 1e-9);
  // Ticks count from the start of forward: an overhead before it moves them with it.
  IterationEffects overhead;
  overhead.iterationOverheadSeconds = 0.0013;
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, instantLinks(4), overhead).iterationSeconds, 0.0013 + expected, 1e-9);
  // One GPU allreduces nothing and waits for no tick.
  EXPECT_NEAR(simulateIteration(plan, ring(), {}, instantLinks(1)).iterationSeconds, plan.workload().computeSeconds(), 1e-12);
}

}  // namespace
}  // namespace ddl
