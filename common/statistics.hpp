#pragma once
// The few statistics the tools compute over measured and fitted values, in one place so that a median
// means the same thing everywhere it is printed.

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace ddl {

// 0 for no values.
inline double mean(const std::vector<double>& values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

// The sample standard deviation (n - 1); zero for fewer than two values.
inline double sampleDeviation(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double m = mean(values);
  double squares = 0;
  for (double v : values) squares += (v - m) * (v - m);
  return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

// The middle value, or the mean of the two middle ones; `values` must not be empty.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The q-quantile (0 to 1) of `sorted` (ascending, not empty), interpolated between the two nearest order
// statistics: Hyndman and Fan's definition 7, numpy's default, so that analysis in Python agrees with it.
inline double quantileOfSorted(const std::vector<double>& sorted, double q) {
  const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(at));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (at - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

// The upper of the two middle values where there is an even number: a value that was measured, as
// nccl-tests and ddlrun report an iteration's time; `values` must not be empty.
inline double upperMedian(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace ddl
