#pragma once
// What an iteration loses beyond its compute and its communication: stragglers, interference and
// overheads. Each effect is a named parameter with a unit, off (zero) unless a scenario asks for it, and a
// declaration (effectTable) of the value the project's sources give it, with a low-high range, the source,
// the confidence and the prior put on it (a distribution over low-high, for ddlsim --samples). The simulator applies them (sim/engine/iteration_simulation.hpp); ddlrun train runs what it
// runs and ignores them (measuring them, and fitting them, is the next step of issue 13).
//
// Draws are counter-based: a rank's draw depends only on the seed, the GPU count, the iteration and the
// rank, never on the order points are simulated in, so the same seed gives the same output whatever the
// sweep's order, and every algorithm of a GPU count meets the same stragglers.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ddl {

struct IterationEffects {
  // Coefficient of variation (σ/μ) of a rank's compute in one iteration: each rank's forward, backward and
  // optimizer are multiplied by a lognormal factor of mean 1, drawn anew each iteration.
  double computeJitter = 0;
  // σ of each GPU's static time factor (normal, mean 1, never under 1/kSlowestSpeedUp): GPU r keeps its
  // factor at every GPU count, as one fleet's GPU does.
  double gpuSpeedSpread = 0;
  // Or an empirical distribution of that factor (a GPU's time over the fleet median), drawn from with
  // replacement; it replaces gpuSpeedSpread. gpuTimeFactorsFile names it in results.
  std::vector<double> gpuTimeFactors;
  std::string gpuTimeFactorsFile;
  // An empirical distribution of one job's compute time over the median of many jobs on one machine
  // (models/job-speed/): the samples draw jobTimeFactor from it. jobTimeFactorsFile names it in results.
  std::vector<double> jobTimeFactors;
  std::string jobTimeFactorsFile;
  // Every rank's compute, and one GPU alone's, is multiplied by this: the job predicted runs at its own
  // speed, not at the speed of the job its profile was measured in. 1 in the central run (the profile's
  // job); in a sample, one job's factor over another's (sampleEffects).
  double jobTimeFactor = 1;
  // While a GPU's collective runs (from its start on that GPU to its end, as an NCCL kernel holds its SMs
  // from launch to completion, waits included), the GPU's compute runs 1/(1+s) as fast.
  double overlapSlowdown = 0;
  // Host time before each allreduce starts (the framework's and the launch's), seconds; none at one GPU.
  double allreduceOverheadSeconds = 0;
  // Host time at the start of each iteration that overlaps nothing (framework, input pipeline), seconds.
  double iterationOverheadSeconds = 0;
  std::uint64_t seed = 1;
  // Iterations simulated back to back, the mean reported; 0: iterationsFor chooses.
  int iterations = 0;

  bool any() const;
  // Whether successive iterations differ, so that more than one is worth simulating.
  bool drawsPerIteration() const { return computeJitter > 0; }
  // Whether any rank's draw (its jitter, its GPU's time factor) depends on the seed.
  bool drawsPerRank() const { return computeJitter > 0 || gpuSpeedSpread > 0 || !gpuTimeFactors.empty(); }
  // `iterations` if set; else, with draws per iteration, enough that about kDrawsPerPoint compute times
  // are drawn (1 to kMaxIterations), else 1. One GPU alone has no one to wait for, and its mean is known
  // (below): 1.
  int iterationsFor(int gpus) const;
  // The lognormal compute factor of `rank` in `iteration` at `gpus` GPUs; 1 without jitter, and 1 at one
  // GPU, whose iterations' mean is the draws' mean, 1, with no Monte Carlo error to add.
  double computeFactor(int gpus, int iteration, int rank) const;
  // GPU `rank`'s static time factor at `gpus` GPUs; 1 without a spread, and 1 at one GPU: one GPU alone is
  // the baseline, a typical GPU (the factors are about the median).
  double gpuTimeFactor(int gpus, int rank) const;
  // What rank `rank`'s compute is multiplied by before its jitter: its GPU's factor and the job's.
  double rankTimeFactor(int gpus, int rank) const { return jobTimeFactor * gpuTimeFactor(gpus, rank); }
};

// What is believed of an effect's value before anything of the system predicted is measured: a distribution
// over its sources' low-high range, chosen from what the sources give, never from a figure to be predicted.
enum class PriorShape {
  // A central value and bounds: a triangle with its mode at the central value, the bounds least likely.
  Triangular,
  // Bounds only, nothing known between them: uniform.
  Uniform,
};

inline constexpr int kDrawsPerPoint = 256;
inline constexpr int kMaxIterations = 32;
// A normal speed spread never makes a GPU more than this many times faster than its mean.
inline constexpr double kSlowestSpeedUp = 2;

// One effect as scenarios name it, with what its sources say.
struct EffectDeclaration {
  std::string_view key;   // in scenario and results files: "compute_jitter"
  std::string_view unit;  // "fraction", "s"
  double maximum;         // accepted values are 0 to this
  // The sourced values: a scenario's "sourced" takes `central`, and `ddlsim --samples` draws from `prior`
  // over low to high.
  double central;
  double low;
  double high;
  // Whether a larger value raises the scaling efficiency (a per-iteration overhead is paid by the
  // baseline too, so it dilutes the communication); every other effect lowers it.
  bool raisesEfficiency;
  std::string_view meaning;
  std::string_view source;
  std::string_view confidence;
  double IterationEffects::*field;
  PriorShape prior;
  std::string_view priorReason;  // why that shape on these sources

  // The value at cumulative probability `u` (0 to 1) of the prior.
  double priorQuantile(double u) const;
};

std::span<const EffectDeclaration> effectTable();
const EffectDeclaration* findEffectDeclaration(std::string_view key);

// Sample `sample` (from 0) of a Monte Carlo over the priors: `central` with each effect of `drawn` drawn
// from its prior, with `drawSeed` the seed of the per-rank draws (jitter, GPU factors) made anew, and with
// `drawJob` (where `central` has job time factors) the job's time factor drawn, all from `central`'s seed
// and `sample` alone, so that a sample is the same whichever point, process or order draws it. An input's
// draw does not depend on which others are drawn with it.
//
// The job's factor is one job's factor over another's, both drawn from the same empirical distribution:
// the profile was measured in one job of the machine and the job predicted is another, so their ratio, not
// one job's distance from the median, is what a prediction from the profile misses.
IterationEffects sampleEffects(const IterationEffects& central, std::span<const EffectDeclaration* const> drawn,
                               std::uint64_t sample, bool drawSeed = true, bool drawJob = true);

}  // namespace ddl
