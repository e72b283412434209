// The priors ddlsim --samples draws the sourced effects from (algorithms/training/iteration_effects.hpp), and
// the percentiles it reports (algorithms/training/scaling_point.hpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/scaling_point.hpp"

namespace ddl {
namespace {

TEST(EffectPriors, EachSpansItsSourcesRangeAndATriangleHasItsModeAtTheCentralValue) {
  for (const EffectDeclaration& effect : effectTable()) {
    SCOPED_TRACE(std::string(effect.key));
    EXPECT_FALSE(effect.priorReason.empty());
    EXPECT_DOUBLE_EQ(effect.priorQuantile(0), effect.low);
    EXPECT_DOUBLE_EQ(effect.priorQuantile(1), effect.high);
    double previous = effect.low;
    for (int step = 1; step <= 1000; ++step) {
      const double value = effect.priorQuantile(step / 1000.0);
      EXPECT_GE(value, previous);  // a quantile function never decreases
      previous = value;
    }
    if (effect.prior == PriorShape::Triangular) {
      // The cumulative probability at the mode is (mode - low) / (high - low).
      const double atMode = (effect.central - effect.low) / (effect.high - effect.low);
      EXPECT_NEAR(effect.priorQuantile(atMode), effect.central, 1e-12 * effect.high);
    }
  }
}

TEST(EffectPriors, ManyDrawsHaveTheDistributionsMean) {
  // Triangle: (low + mode + high) / 3; uniform: the midpoint. 20,000 draws put the mean within about 1% of
  // the range (its standard error is under 0.3% of it).
  std::vector<const EffectDeclaration*> every;
  for (const EffectDeclaration& effect : effectTable()) every.push_back(&effect);
  IterationEffects central;
  std::vector<double> sums(every.size(), 0);
  constexpr int kDraws = 20'000;
  for (std::uint64_t sample = 0; sample < kDraws; ++sample) {
    const IterationEffects drawn = sampleEffects(central, every, sample);
    for (std::size_t e = 0; e < every.size(); ++e) sums[e] += drawn.*every[e]->field;
  }
  for (std::size_t e = 0; e < every.size(); ++e) {
    const EffectDeclaration& effect = *every[e];
    const double expected = effect.prior == PriorShape::Triangular ? (effect.low + effect.central + effect.high) / 3
                                                                   : (effect.low + effect.high) / 2;
    EXPECT_NEAR(sums[e] / kDraws, expected, 0.01 * (effect.high - effect.low)) << effect.key;
  }
}

TEST(EffectPriors, ASampleDrawsOnlyTheSourcedEffectsAndANewSeedFromItsNumberAlone) {
  IterationEffects central;
  central.overlapSlowdown = 0.3;  // given as a number: not drawn
  central.seed = 7;
  const EffectDeclaration* jitter = findEffectDeclaration("compute_jitter");
  const std::vector<const EffectDeclaration*> sourced{jitter};
  const IterationEffects first = sampleEffects(central, sourced, 3);
  EXPECT_EQ(first.overlapSlowdown, 0.3);
  EXPECT_GE(first.computeJitter, jitter->low);
  EXPECT_LE(first.computeJitter, jitter->high);
  EXPECT_NE(first.seed, central.seed);
  // The same sample whenever and wherever it is drawn; others differ.
  const IterationEffects again = sampleEffects(central, sourced, 3);
  EXPECT_EQ(again.computeJitter, first.computeJitter);
  EXPECT_EQ(again.seed, first.seed);
  std::set<std::uint64_t> seeds;
  std::set<double> jitters;
  for (std::uint64_t sample = 0; sample < 100; ++sample) {
    const IterationEffects drawn = sampleEffects(central, sourced, sample);
    seeds.insert(drawn.seed);
    jitters.insert(drawn.computeJitter);
  }
  EXPECT_EQ(seeds.size(), 100u);
  EXPECT_EQ(jitters.size(), 100u);
  // Another scenario seed, other samples.
  central.seed = 8;
  EXPECT_NE(sampleEffects(central, sourced, 3).computeJitter, first.computeJitter);
}

TEST(Percentiles, InterpolateBetweenOrderStatisticsAsNumpyDoes) {
  // numpy.percentile([5, 1, 4, 2, 3], [5, 50, 95]) is [1.2, 3.0, 4.8].
  const Percentiles five = percentilesOf({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(five.p05, 1.2);
  EXPECT_DOUBLE_EQ(five.p50, 3.0);
  EXPECT_DOUBLE_EQ(five.p95, 4.8);
  const Percentiles one = percentilesOf({2.5});
  EXPECT_EQ(one.p05, 2.5);
  EXPECT_EQ(one.p95, 2.5);
  // numpy.percentile([1, 2], [5, 50, 95]) is [1.05, 1.5, 1.95].
  const Percentiles two = percentilesOf({2, 1});
  EXPECT_DOUBLE_EQ(two.p05, 1.05);
  EXPECT_DOUBLE_EQ(two.p50, 1.5);
  EXPECT_DOUBLE_EQ(two.p95, 1.95);
}

}  // namespace
}  // namespace ddl
