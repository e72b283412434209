#include "algorithms/training/effect_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "common/statistics.hpp"

namespace ddl {
namespace {

// The points of distinct jobs: those of one job repeat its compute-alone figures, measured once.
std::vector<const MeasuredEffects*> distinctJobs(const std::vector<MeasuredEffects>& points) {
  std::vector<const MeasuredEffects*> jobs;
  for (const MeasuredEffects& point : points) {
    const bool seen = std::any_of(jobs.begin(), jobs.end(), [&](const MeasuredEffects* job) {
      return job->computeAloneSeconds == point.computeAloneSeconds &&
             job->computeAloneDeviationSeconds == point.computeAloneDeviationSeconds;
    });
    if (!seen) jobs.push_back(&point);
  }
  return jobs;
}

// Compute that lasts its planned time by construction (a sleep, a GPU kernel waiting on a timer): nothing
// beside it slows it, and it varies neither between iterations nor between ranks.
bool lastsItsPlannedTime(const std::string& compute) { return compute == "sleep" || compute == "GPU timer kernels"; }

constexpr const char* kPlannedTime =
    "every point's compute was a sleep or a GPU timer kernel, which lasts its planned time by construction "
    "(measure with ddlrun train --host-compute busy)";

// A deviation pooled from `squares`, the sum of squared deviations times their degrees of freedom
// (fit.samples, in all), with its standard error sigma / sqrt(2 dof); `why` where there are none.
FittedEffect pooledDeviation(FittedEffect fit, double squares, const char* why) {
  if (fit.samples == 0) {
    fit.why = why;
    return fit;
  }
  fit.value = std::sqrt(squares / fit.samples);
  fit.residual = *fit.value / std::sqrt(2.0 * fit.samples);
  return fit;
}

FittedEffect jitter(const std::vector<const MeasuredEffects*>& jobs) {
  FittedEffect fit{"compute_jitter", std::nullopt, 0, "standard error", 0, ""};
  double squares = 0;
  bool measurable = false;
  for (const MeasuredEffects* job : jobs) {
    if (lastsItsPlannedTime(job->compute)) continue;
    measurable = true;
    if (job->iterations < 2) continue;
    for (int r = 0; r < job->ranks(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (!(job->computeAloneSeconds[i] > 0)) continue;
      const double relative = job->computeAloneDeviationSeconds[i] / job->computeAloneSeconds[i];
      squares += relative * relative * (job->iterations - 1);
      fit.samples += job->iterations - 1;
    }
  }
  return pooledDeviation(std::move(fit), squares,
                         measurable ? "every job timed one iteration: a deviation needs two (ddlrun train -n 2 or more)" : kPlannedTime);
}

FittedEffect spread(const std::vector<const MeasuredEffects*>& jobs) {
  FittedEffect fit{"gpu_speed_spread", std::nullopt, 0, "standard error", 0, ""};
  double squares = 0;
  bool measurable = false;
  for (const MeasuredEffects* job : jobs) {
    if (lastsItsPlannedTime(job->compute)) continue;
    measurable = true;
    const std::optional<double> estimate = job->gpuSpeedSpread();
    if (!estimate) continue;
    squares += *estimate * *estimate * (job->ranks() - 1);
    fit.samples += job->ranks() - 1;
  }
  return pooledDeviation(std::move(fit), squares,
                         measurable ? "no job had two ranks and two timed iterations: a spread between ranks needs both" : kPlannedTime);
}

FittedEffect slowdown(const std::vector<MeasuredEffects>& points) {
  FittedEffect fit{"overlap_slowdown", std::nullopt, 0, "rms of each point's unexplained stretch / its compute", 0, ""};
  double stretch = 0, overlap = 0, compute = 0;
  std::vector<const MeasuredEffects*> used;
  for (const MeasuredEffects& point : points) {
    if (lastsItsPlannedTime(point.compute)) continue;
    used.push_back(&point);
    for (int r = 0; r < point.ranks(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      stretch += point.computeOverlappedSeconds[i] - point.computeAloneSeconds[i];
      overlap += point.overlapSeconds[i];
      compute += point.computeAloneSeconds[i];
      ++fit.samples;
    }
  }
  if (used.empty()) {
    fit.why = kPlannedTime;
    return fit;
  }
  if (overlap < 0.01 * compute) {
    fit.why = "allreduces overlapped compute for under 1% of it: nothing to see a slowdown in";
    return fit;
  }
  if (stretch >= overlap) {
    fit.why = "compute stretched by more than its overlap with allreduces (" + std::to_string(stretch) + " s against " +
              std::to_string(overlap) + " s): no slowdown while they overlap explains that";
    return fit;
  }
  const double s = stretch / (overlap - stretch);
  fit.value = s;
  double squares = 0;
  for (const MeasuredEffects* point : used) {
    double unexplained = 0, pointCompute = 0;
    for (int r = 0; r < point->ranks(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      unexplained += point->computeOverlappedSeconds[i] - point->computeAloneSeconds[i] - point->overlapSeconds[i] * s / (1 + s);
      pointCompute += point->computeAloneSeconds[i];
    }
    squares += pointCompute > 0 ? (unexplained / pointCompute) * (unexplained / pointCompute) : 0;
  }
  fit.residual = std::sqrt(squares / static_cast<double>(used.size()));
  return fit;
}

FittedEffect overhead(const std::vector<MeasuredEffects>& points) {
  FittedEffect fit{"allreduce_overhead_s", std::nullopt, 0, "median absolute deviation", 0, ""};
  std::vector<double> medians;
  // One rank has nothing to allreduce, and the simulator charges it no overhead: what it measured is the
  // runtime's empty call, not an allreduce's overhead.
  for (const MeasuredEffects& point : points)
    if (point.ranks() > 1)
      medians.insert(medians.end(), point.allreduceOverheadSeconds.begin(), point.allreduceOverheadSeconds.end());
  fit.samples = static_cast<int>(medians.size());
  if (medians.empty()) {
    fit.why = "no point of two or more ranks ran an allreduce";
    return fit;
  }
  fit.value = median(medians);
  for (double& m : medians) m = std::abs(m - *fit.value);
  fit.residual = median(medians);
  return fit;
}

}  // namespace

std::vector<FittedEffect> fitEffects(const std::vector<MeasuredEffects>& points) {
  const std::vector<const MeasuredEffects*> jobs = distinctJobs(points);
  return {jitter(jobs), spread(jobs), slowdown(points), overhead(points)};
}

}  // namespace ddl
