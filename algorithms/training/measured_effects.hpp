#pragma once
// What `ddlrun train` measured of the effects the simulator models (iteration_effects.hpp), per point:
// each rank's compute alone and beside its allreduces, how long the two overlapped, and the time each
// allreduce spent outside its transfers and reductions; and the effect parameters estimated from them,
// in the simulator's units, so that `ddlsim calibrate` can write them into a scenario.
//
// The estimators, each the simulator's model read backwards:
// - compute_jitter (sigma/mu per rank and iteration): the within-rank standard deviation of compute alone,
//   pooled over ranks, over the mean;
// - gpu_speed_spread (sigma of a static per-rank factor): the between-rank variance of the rank means less
//   what the within-rank noise puts there (sigma_w^2 / n), over the mean (one-way analysis of variance);
// - overlap_slowdown s: compute runs at 1/(1+s) while its rank's allreduce runs, so A seconds of overlap
//   stretch it by A s/(1+s); pooled over ranks, s = D / (A - D) for a total stretch D over a total overlap A;
// - allreduce_overhead_s: the median over ranks of each rank's median (over iterations) of the mean time
//   an allreduce spent outside transfers and reductions.

#include <optional>
#include <string>
#include <vector>

namespace ddl {

// One rank's samples over the timed iterations of one point.
struct RankEffectSamples {
  std::vector<double> computeAlone;       // forward and backward with nothing else running, per iteration (s)
  std::vector<double> computeOverlapped;  // the same pass in training iterations, beside the allreduces (s)
  std::vector<double> overlap;            // per training iteration: how long compute and an allreduce both ran (s)
  // Per training iteration: the mean over its allreduces of each one's time outside transfers and
  // reductions, from when it could start (s).
  std::vector<double> allreduceOverhead;
};

struct MeasuredEffects {
  std::string compute;  // how compute was reproduced: ComputeEmulator::description()
  int iterations = 0;   // compute-alone iterations per rank (and as many training iterations)
  // Per rank: the mean and standard deviation of compute alone, the mean of the same pass in training
  // iterations and of its overlap with allreduces, and the median per-allreduce overhead.
  std::vector<double> computeAloneSeconds, computeAloneDeviationSeconds, computeOverlappedSeconds, overlapSeconds,
      allreduceOverheadSeconds;

  int ranks() const { return static_cast<int>(computeAloneSeconds.size()); }
  // Each estimate is unset where the samples cannot identify it: jitter needs two iterations, spread two
  // ranks as well, slowdown an overlap of at least 1% of the compute; overhead needs an allreduce.
  std::optional<double> computeJitter() const;
  std::optional<double> gpuSpeedSpread() const;
  std::optional<double> overlapSlowdown() const;
  std::optional<double> allreduceOverhead() const;
  // What overlapSlowdown leaves unexplained of each rank's stretch (s): measured D_r - A_r s/(1+s).
  std::vector<double> slowdownResiduals() const;
};

// Throws std::invalid_argument if ranks differ in their number of compute-alone iterations.
MeasuredEffects summarizeEffects(const std::vector<RankEffectSamples>& ranks, const std::string& compute);

}  // namespace ddl
