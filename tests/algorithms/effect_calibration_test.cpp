// The effects fitted from many measured points: each pooled as the simulator's model says, jobs counted
// once, and what no point can identify refused with the reason.
#include "algorithms/training/effect_calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ddl {
namespace {

// A point of `ranks` ranks with compute alone `alone` +- `deviation`, stretched by `stretch` over an
// overlap of `overlap` (each per rank), and a per-allreduce overhead.
MeasuredEffects point(int ranks, double alone, double deviation, double overlap, double stretch, double overhead,
                      const std::string& compute = "busy host cores", int iterations = 5) {
  MeasuredEffects p;
  p.compute = compute;
  p.iterations = iterations;
  for (int r = 0; r < ranks; ++r) {
    p.computeAloneSeconds.push_back(alone * (1 + 0.01 * r));
    p.computeAloneDeviationSeconds.push_back(deviation);
    p.computeOverlappedSeconds.push_back(alone * (1 + 0.01 * r) + stretch);
    p.overlapSeconds.push_back(overlap);
    p.allreduceOverheadSeconds.push_back(overhead);
  }
  return p;
}

const FittedEffect& fitted(const std::vector<FittedEffect>& fits, const std::string& key) {
  for (const FittedEffect& fit : fits)
    if (fit.key == key) return fit;
  throw std::logic_error("no " + key);
}

TEST(EffectCalibration, OneSlowdownExplainsEveryPointsStretch) {
  // Points of two algorithms, overlapping compute differently, built with s = 0.5: stretch A s/(1+s).
  const double s = 0.5;
  const std::vector<MeasuredEffects> points = {point(2, 0.1, 0.001, 0.03, 0.03 * s / (1 + s), 2e-5),
                                               point(2, 0.1, 0.001, 0.08, 0.08 * s / (1 + s), 4e-5)};
  const std::vector<FittedEffect> fits = fitEffects(points);
  const FittedEffect& slowdown = fitted(fits, "overlap_slowdown");
  ASSERT_TRUE(slowdown.value) << slowdown.why;
  EXPECT_NEAR(*slowdown.value, s, 1e-12);
  EXPECT_NEAR(slowdown.residual, 0, 1e-12);
  EXPECT_EQ(slowdown.samples, 4);
  // The overhead: the median of the four ranks' medians (2e-5 twice, 4e-5 twice).
  EXPECT_DOUBLE_EQ(*fitted(fits, "allreduce_overhead_s").value, 3e-5);
}

TEST(EffectCalibration, AJobsComputeAloneCountsOnceHoweverManyPointsRepeatIt) {
  // Three points of one job repeat its figures: the jitter is that job's, with its degrees of freedom only.
  const MeasuredEffects one = point(2, 0.1, 0.002, 0.05, 0.01, 1e-5);
  const std::vector<FittedEffect> fits = fitEffects({one, one, one});
  const FittedEffect& jitter = fitted(fits, "compute_jitter");
  EXPECT_EQ(jitter.samples, 2 * 4);  // two ranks, five iterations each
  const double expected = std::sqrt((std::pow(0.002 / 0.1, 2) + std::pow(0.002 / 0.101, 2)) / 2);
  EXPECT_NEAR(*jitter.value, expected, 1e-12);
  EXPECT_NEAR(jitter.residual, expected / std::sqrt(16.0), 1e-12);
  // A second job counts: its ranks pooled with the first's.
  const std::vector<FittedEffect> two = fitEffects({one, point(4, 0.1, 0, 0.05, 0.01, 1e-5)});
  EXPECT_EQ(fitted(two, "compute_jitter").samples, 6 * 4);
  EXPECT_LT(*fitted(two, "compute_jitter").value, expected);
}

TEST(EffectCalibration, SpreadPoolsEachJobsBetweenRankEstimate) {
  // Ranks 1% apart, no noise: each job's spread is the deviation of its rank means over their mean.
  const MeasuredEffects job = point(3, 0.1, 0, 0.05, 0.01, 1e-5);
  const double expected = *job.gpuSpeedSpread();
  EXPECT_GT(expected, 0.009);
  const std::vector<FittedEffect> fits = fitEffects({job});
  const FittedEffect& spread = fitted(fits, "gpu_speed_spread");
  EXPECT_NEAR(*spread.value, expected, 1e-12);
  EXPECT_EQ(spread.samples, 2);
}

TEST(EffectCalibration, WhatNoPointCanIdentifyIsRefusedWithTheReason) {
  // Sleeping compute cannot slow down; one rank has no spread; one iteration no deviation.
  const std::vector<FittedEffect> fits = fitEffects({point(1, 0.1, 0, 0.05, 0, 1e-5, "sleep", 1)});
  for (const char* key : {"compute_jitter", "gpu_speed_spread", "overlap_slowdown"}) {
    EXPECT_FALSE(fitted(fits, key).value) << key;
    EXPECT_FALSE(fitted(fits, key).why.empty()) << key;
  }
  for (const char* key : {"compute_jitter", "gpu_speed_spread", "overlap_slowdown"})
    EXPECT_NE(fitted(fits, key).why.find("--host-compute busy"), std::string::npos) << key;
  // Sleeping compute of many ranks and iterations still varies by construction not at all.
  const std::vector<FittedEffect> asleep = fitEffects({point(4, 0.1, 0, 0.05, 0, 1e-5, "sleep", 5)});
  EXPECT_FALSE(fitted(asleep, "compute_jitter").value);
  EXPECT_FALSE(fitted(asleep, "gpu_speed_spread").value);
  EXPECT_DOUBLE_EQ(*fitted(asleep, "allreduce_overhead_s").value, 1e-5);
  // One rank's overhead is an empty call's: the simulator charges one GPU none, and so does the fit.
  EXPECT_FALSE(fitted(fits, "allreduce_overhead_s").value);
  EXPECT_DOUBLE_EQ(*fitted(fitEffects({point(1, 0.1, 0, 0, 0, 9e-5), point(2, 0.1, 0, 0.05, 0.01, 2e-5)}), "allreduce_overhead_s").value,
                   2e-5);
  // Busy compute with no overlap to speak of, or stretched beyond what its overlap explains.
  EXPECT_FALSE(fitted(fitEffects({point(2, 0.1, 0, 0.0001, 0, 1e-5)}), "overlap_slowdown").value);
  EXPECT_FALSE(fitted(fitEffects({point(2, 0.1, 0, 0.01, 0.02, 1e-5)}), "overlap_slowdown").value);
  // The order is kFittedEffectKeys'.
  const std::vector<FittedEffect> all = fitEffects({point(2, 0.1, 0.001, 0.05, 0.01, 1e-5)});
  ASSERT_EQ(all.size(), std::size(kFittedEffectKeys));
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].key, kFittedEffectKeys[i]);
}

}  // namespace
}  // namespace ddl
