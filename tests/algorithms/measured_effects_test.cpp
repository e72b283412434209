// The estimators of ddlrun train's measured effects, each the simulator's model read backwards: samples
// built from the model with known parameters give the parameters back.
#include "algorithms/training/measured_effects.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ddl {
namespace {

// A rank whose compute alone alternates mu(1 - d), mu(1 + d) over `iterations` (an even count): its sample
// standard deviation is mu d sqrt(n / (n - 1)).
RankEffectSamples alternating(double mu, double d, int iterations) {
  RankEffectSamples rank;
  for (int i = 0; i < iterations; ++i) rank.computeAlone.push_back(mu * (i % 2 ? 1 + d : 1 - d));
  rank.computeOverlapped.assign(static_cast<std::size_t>(iterations), mu);
  rank.overlap.assign(static_cast<std::size_t>(iterations), 0);
  rank.allreduceOverhead = {1e-5};
  return rank;
}

TEST(MeasuredEffects, JitterIsThePooledWithinRankDeviationOverTheMean) {
  const MeasuredEffects effects = summarizeEffects({alternating(0.1, 0.01, 10), alternating(0.1, 0.03, 10)}, "busy host cores");
  // Pooled variance: the mean of the two ranks' variances.
  const double n = 10;
  const double expected = std::sqrt((0.01 * 0.01 + 0.03 * 0.03) / 2 * n / (n - 1));
  EXPECT_NEAR(*effects.computeJitter(), expected, 1e-12);
}

TEST(MeasuredEffects, SpreadIsTheBetweenRankDeviationLessTheWithinRankNoise) {
  // Ranks 2% apart with no noise: the spread is their standard deviation over the mean.
  const MeasuredEffects quiet = summarizeEffects({alternating(0.098, 0, 4), alternating(0.102, 0, 4)}, "sleep");
  EXPECT_NEAR(*quiet.gpuSpeedSpread(), std::sqrt(2 * 0.002 * 0.002) / 0.1, 1e-12);
  // Ranks alike, each noisy: what the means differ by is the noise's, so no static spread at all.
  const MeasuredEffects noisy = summarizeEffects({alternating(0.1, 0.05, 4), alternating(0.1, 0.05, 4)}, "sleep");
  EXPECT_EQ(*noisy.gpuSpeedSpread(), 0);
  // Ranks 2% apart and noisy: the noise's share of the between-rank variance, sigma_w^2 / n, comes off.
  const MeasuredEffects both = summarizeEffects({alternating(0.099, 0.01, 4), alternating(0.101, 0.01, 4)}, "busy host cores");
  const double between = 0.002 * 0.002 / 2;  // the sample variance of 0.099 and 0.101
  const double within = (std::pow(0.099 * 0.01, 2) + std::pow(0.101 * 0.01, 2)) / 2 * 4 / 3;
  EXPECT_NEAR(*both.gpuSpeedSpread(), std::sqrt(between - within / 4) / 0.1, 1e-12);
  EXPECT_LT(*both.gpuSpeedSpread(), std::sqrt(between) / 0.1 - 1e-4) << "the correction was applied";
}

TEST(MeasuredEffects, SlowdownInvertsTheSimulatorsStretchOfOverlappedCompute) {
  // The simulator stretches compute by A s/(1+s) for an overlap of A: ranks built so give s back, and
  // nothing is left unexplained.
  for (double s : {0.189, 1.0, 2.5}) {
    std::vector<RankEffectSamples> ranks;
    for (double overlap : {0.02, 0.05}) {
      RankEffectSamples rank = alternating(0.1, 0, 4);
      rank.overlap.assign(4, overlap);
      rank.computeOverlapped.assign(4, 0.1 + overlap * s / (1 + s));
      ranks.push_back(rank);
    }
    const MeasuredEffects effects = summarizeEffects(ranks, "busy host cores");
    EXPECT_NEAR(*effects.overlapSlowdown(), s, 1e-9) << s;
    for (double residual : effects.slowdownResiduals()) EXPECT_NEAR(residual, 0, 1e-12);
  }
}

TEST(MeasuredEffects, WhatTheSamplesCannotIdentifyIsLeftUnset) {
  // One iteration: no deviation to speak of; one rank: no spread.
  const MeasuredEffects once = summarizeEffects({alternating(0.1, 0, 1), alternating(0.1, 0, 1)}, "sleep");
  EXPECT_FALSE(once.computeJitter());
  EXPECT_FALSE(once.gpuSpeedSpread());
  const MeasuredEffects alone = summarizeEffects({alternating(0.1, 0.01, 4)}, "sleep");
  EXPECT_TRUE(alone.computeJitter());
  EXPECT_FALSE(alone.gpuSpeedSpread());
  // No overlap, or a stretch that an overlap of that length cannot explain: no slowdown.
  EXPECT_FALSE(alone.overlapSlowdown());
  RankEffectSamples stretched = alternating(0.1, 0, 4);
  stretched.overlap.assign(4, 0.01);
  stretched.computeOverlapped.assign(4, 0.12);
  EXPECT_FALSE(summarizeEffects({stretched}, "busy host cores").overlapSlowdown());
  EXPECT_TRUE(summarizeEffects({stretched}, "busy host cores").slowdownResiduals().empty());
  // The overhead is the median of the ranks' medians.
  RankEffectSamples a = alternating(0.1, 0, 2), b = a, c = a;
  a.allreduceOverhead = {1e-6, 2e-6, 9e-6};
  b.allreduceOverhead = {5e-6};
  c.allreduceOverhead = {7e-6, 8e-6};
  EXPECT_DOUBLE_EQ(*summarizeEffects({a, b, c}, "sleep").allreduceOverhead(), 5e-6);
}

TEST(MeasuredEffects, RanksMustHaveMeasuredAsManyIterations) {
  EXPECT_THROW(summarizeEffects({alternating(0.1, 0, 2), alternating(0.1, 0, 4)}, "sleep"), std::invalid_argument);
}

}  // namespace
}  // namespace ddl
