#pragma once
// The effect parameters of a scenario (iteration_effects.hpp) fitted from what `ddlrun train` measured
// (measured_effects.hpp) over any number of points and jobs, each pooled as its model says it should be:
//
// - compute_jitter: the per-rank relative deviations of compute alone, pooled over every rank of every job
//   (weighted by degrees of freedom, n - 1 per rank); a job's figures count once, though each of its
//   points repeats them;
// - gpu_speed_spread: each job's between-rank estimate, pooled over jobs (weighted by ranks - 1);
// - overlap_slowdown: one s for every point, s = sum D / (sum A - sum D) over all ranks of all points;
// - allreduce_overhead_s: the median of every rank's median over every point of two or more ranks (the
//   simulator charges one GPU none).
// The first three only from compute that can vary (busy host cores): a sleep or a GPU timer kernel lasts
// its planned time by construction.
//
// Each comes with its residual: what the fit leaves unexplained, in the parameter's unit (the standard
// error of a deviation; for the slowdown, the root mean square of each point's unexplained stretch over
// its compute; for the overhead, the median absolute deviation). One the data cannot identify is unset,
// with the reason.

#include <optional>
#include <string>
#include <vector>

#include "algorithms/training/measured_effects.hpp"

namespace ddl {

struct FittedEffect {
  std::string key;              // the scenario's key: "overlap_slowdown"
  std::optional<double> value;  // unset where the measurements cannot identify it
  double residual = 0;
  std::string residualMeaning;  // "standard error", "rms unexplained stretch / compute", ...
  int samples = 0;              // what it was fitted from: degrees of freedom, ranks x points, ...
  std::string why;              // why it is unset, where it is
};

// In the order of kFittedEffectKeys.
std::vector<FittedEffect> fitEffects(const std::vector<MeasuredEffects>& points);

inline constexpr const char* kFittedEffectKeys[] = {"compute_jitter", "gpu_speed_spread", "overlap_slowdown", "allreduce_overhead_s"};

}  // namespace ddl
