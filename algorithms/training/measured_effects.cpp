#include "algorithms/training/measured_effects.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "common/statistics.hpp"

namespace ddl {
namespace {

double sum(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

}  // namespace

std::optional<double> MeasuredEffects::computeJitter() const {
  if (iterations < 2 || ranks() == 0) return std::nullopt;
  double variance = 0;
  for (double sd : computeAloneDeviationSeconds) variance += sd * sd / ranks();
  const double grand = mean(computeAloneSeconds);
  if (!(grand > 0)) return std::nullopt;
  return std::sqrt(variance) / grand;
}

std::optional<double> MeasuredEffects::gpuSpeedSpread() const {
  if (iterations < 2 || ranks() < 2) return std::nullopt;
  const double grand = mean(computeAloneSeconds);
  if (!(grand > 0)) return std::nullopt;
  const double between = sampleDeviation(computeAloneSeconds);
  double within = 0;  // the pooled within-rank variance
  for (double sd : computeAloneDeviationSeconds) within += sd * sd / ranks();
  return std::sqrt(std::max(0.0, between * between - within / iterations)) / grand;
}

std::optional<double> MeasuredEffects::overlapSlowdown() const {
  const double overlap = sum(overlapSeconds);
  const double stretch = sum(computeOverlappedSeconds) - sum(computeAloneSeconds);
  if (ranks() == 0 || overlap < 0.01 * sum(computeAloneSeconds) || stretch >= overlap) return std::nullopt;
  return stretch / (overlap - stretch);
}

std::optional<double> MeasuredEffects::allreduceOverhead() const {
  if (allreduceOverheadSeconds.empty()) return std::nullopt;
  return median(allreduceOverheadSeconds);
}

std::vector<double> MeasuredEffects::slowdownResiduals() const {
  std::vector<double> residuals;
  const std::optional<double> s = overlapSlowdown();
  if (!s) return residuals;
  for (int r = 0; r < ranks(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    residuals.push_back(computeOverlappedSeconds[i] - computeAloneSeconds[i] - overlapSeconds[i] * *s / (1 + *s));
  }
  return residuals;
}

MeasuredEffects summarizeEffects(const std::vector<RankEffectSamples>& ranks, const std::string& compute) {
  MeasuredEffects effects;
  effects.compute = compute;
  effects.iterations = ranks.empty() ? 0 : static_cast<int>(ranks.front().computeAlone.size());
  for (const RankEffectSamples& rank : ranks) {
    if (static_cast<int>(rank.computeAlone.size()) != effects.iterations)
      throw std::invalid_argument("ranks measured compute alone over different numbers of iterations");
    effects.computeAloneSeconds.push_back(mean(rank.computeAlone));
    effects.computeAloneDeviationSeconds.push_back(sampleDeviation(rank.computeAlone));
    effects.computeOverlappedSeconds.push_back(mean(rank.computeOverlapped));
    effects.overlapSeconds.push_back(mean(rank.overlap));
    if (!rank.allreduceOverhead.empty()) effects.allreduceOverheadSeconds.push_back(median(rank.allreduceOverhead));
  }
  return effects;
}

}  // namespace ddl
