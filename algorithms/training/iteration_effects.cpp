#include "algorithms/training/iteration_effects.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ddl {
namespace {

// SplitMix64 (Steele, Lea and Flood, 2014): a bijective mix of 64 bits, enough to turn a counter into
// independent-looking uniforms, and the same on every platform, unlike std::normal_distribution.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform in (0, 1] for the draw named by these counters.
double uniform(std::uint64_t seed, std::uint64_t what, std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t half) {
  std::uint64_t x = mix(seed);
  for (std::uint64_t counter : {what, a, b, c, half}) x = mix(x ^ counter);
  return (static_cast<double>(x >> 11) + 1) * 0x1.0p-53;
}

// A standard normal by Box-Muller from two uniforms of the same draw.
double standardNormal(std::uint64_t seed, std::uint64_t what, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const double u1 = uniform(seed, what, a, b, c, 0);
  const double u2 = uniform(seed, what, a, b, c, 1);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

enum Draw : std::uint64_t { ComputeJitter = 1, GpuSpeed = 2, PriorValue = 3, SampleSeed = 4, JobSpeed = 5 };

// An entry of `factors` chosen by a uniform in (0, 1], each equally likely.
double drawnFrom(const std::vector<double>& factors, double u) {
  const auto index = std::min(factors.size() - 1, static_cast<std::size_t>((1 - u) * static_cast<double>(factors.size())));
  return factors[index];
}

}  // namespace

bool IterationEffects::any() const {
  return drawsPerRank() || jobTimeFactor != 1 || overlapSlowdown > 0 || allreduceOverheadSeconds > 0 || iterationOverheadSeconds > 0;
}

int IterationEffects::iterationsFor(int gpus) const {
  if (iterations > 0) return iterations;
  if (!drawsPerIteration() || gpus == 1) return 1;
  return std::clamp((kDrawsPerPoint + gpus - 1) / std::max(gpus, 1), 1, kMaxIterations);
}

double IterationEffects::computeFactor(int gpus, int iteration, int rank) const {
  if (computeJitter <= 0 || gpus == 1) return 1;
  // Lognormal of mean 1 and standard deviation computeJitter: σ² = ln(1 + cv²), μ = -σ²/2.
  const double variance = std::log1p(computeJitter * computeJitter);
  const double z = standardNormal(seed, ComputeJitter, static_cast<std::uint64_t>(gpus), static_cast<std::uint64_t>(iteration),
                                  static_cast<std::uint64_t>(rank));
  return std::exp(std::sqrt(variance) * z - variance / 2);
}

double IterationEffects::gpuTimeFactor(int gpus, int rank) const {
  if (gpus == 1) return 1;
  if (!gpuTimeFactors.empty()) {
    return drawnFrom(gpuTimeFactors, uniform(seed, GpuSpeed, static_cast<std::uint64_t>(rank), 0, 0, 0));
  }
  if (gpuSpeedSpread <= 0) return 1;
  return std::max(1 / kSlowestSpeedUp, 1 + gpuSpeedSpread * standardNormal(seed, GpuSpeed, static_cast<std::uint64_t>(rank), 0, 0));
}

std::span<const EffectDeclaration> effectTable() {
  static const EffectDeclaration table[] = {
      {"compute_jitter", "fraction (σ/μ of a rank's compute per iteration)", 0.5, 0.002, 0, 0.006, false,
       "each rank's compute in each iteration is multiplied by a lognormal factor of mean 1 and this coefficient of "
       "variation, drawn per rank and iteration",
       "central: tf_cnn_benchmarks' ResNet-50 at 139.5 images/s with a jitter (1.4826 x the median absolute deviation) "
       "of 0.3 (tensorflow/benchmarks pull request 63); high: PyTorch's DDP benchmark (benchmarks/distributed/ddp/"
       "README.md) reports ResNet-50's p95 step time equal to its p50 in the digits shown, so σ under about 0.6%; low: "
       "a steady GPU",
       "read; the GPUs of both are V100-era, not named as P100", &IterationEffects::computeJitter, PriorShape::Triangular,
       "a measured central value between two bounds (a steady GPU; what PyTorch's figures allow)"},
      {"gpu_speed_spread", "fraction (σ of a GPU's time factor)", 0.5, 0, 0, 0.0282, false,
       "each GPU's compute is multiplied by a static factor, normal of mean 1 and this σ, drawn once per GPU",
       "high: σ of the per-GPU ResNet-50 iteration time over the median on 336 V100s of TACC Longhorn (Sinha et al., "
       "SC22; models/gpu-speed/v100-resnet50-longhorn.json, which gpu_time_factors can draw from instead); central: "
       "off, as nothing is known of the 2017 clusters' GPUs",
       "high recomputed from the data; V100, not P100: an upper bound for 2017 clusters",
       &IterationEffects::gpuSpeedSpread, PriorShape::Uniform,
       "bounds only (identical GPUs; a later, larger fleet's spread), nothing known of the 2017 fleets between; its "
       "central value 0 is the low bound, not an estimate"},
      {"overlap_slowdown", "fraction (compute time added while the GPU's collective runs)", 4, 0.189, 0, 0.40, false,
       "while a GPU's collective runs, its compute runs 1/(1+s) as fast",
       "central 18.9% and high 40.0%: the average and the largest compute slowdown measured while communication "
       "overlaps it (arXiv 2507.03114: A100, H100, MI250 and MI210 training LLMs); low: no interference",
       "read; an analogue (other GPUs and models than P100s and CNNs)", &IterationEffects::overlapSlowdown,
       PriorShape::Triangular, "a measured average between no interference and the largest slowdown measured"},
      {"allreduce_overhead_s", "s (per allreduce)", 1, 8.4e-6, 6.6e-6, 30e-6, false,
       "host and launch time before each allreduce starts, beyond the links' latency",
       "central and low: NCCL's base latency of a ring allreduce, Simple and LL protocols (NVIDIA/nccl "
       "src/graph/tuning.cc); high: PyTorch's DDP benchmark on 8 V100s, ResNet-50, 2.6% slower with 1 MiB buckets "
       "than with 25 MiB, about 30 µs per extra bucket with NCCL's latency (derived)",
       "central read; high derived", &IterationEffects::allreduceOverheadSeconds, PriorShape::Triangular,
       "a read central value between NCCL's lowest base latency and a derived high"},
      {"iteration_overhead_s", "s (per iteration)", 10, 0, 0, 3e-3, true,
       "host time at the start of each iteration that overlaps nothing, paid on one GPU too",
       "high: PyTorch's DDP benchmark, ResNet-50 batch 32 on one V100, 0.097 s per step alone and 0.100 s under DDP; "
       "central: none, as the models' compute profiles are whole steps of one GPU",
       "read; V100, PyTorch", &IterationEffects::iterationOverheadSeconds, PriorShape::Uniform,
       "bounds only (none in the profiles, one framework's measured overhead above), nothing known between"},
  };
  return table;
}

double EffectDeclaration::priorQuantile(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  if (prior == PriorShape::Uniform || high <= low) return low + u * (high - low);
  // The inverse of the triangle's cumulative distribution, whose mode `central` splits it at F(central).
  const double width = high - low;
  const double atMode = (central - low) / width;
  if (u < atMode) return low + std::sqrt(u * width * (central - low));
  return high - std::sqrt((1 - u) * width * (high - central));
}

IterationEffects sampleEffects(const IterationEffects& central, std::span<const EffectDeclaration* const> drawn,
                               std::uint64_t sample, bool drawSeed, bool drawJob) {
  IterationEffects effects = central;
  const std::span<const EffectDeclaration> table = effectTable();
  for (const EffectDeclaration* declaration : drawn) {
    const auto which = static_cast<std::uint64_t>(declaration - table.data());
    effects.*declaration->field = declaration->priorQuantile(uniform(central.seed, PriorValue, sample, which, 0, 0));
  }
  if (drawJob && !central.jobTimeFactors.empty())
    effects.jobTimeFactor = drawnFrom(central.jobTimeFactors, uniform(central.seed, JobSpeed, sample, 0, 0, 0)) /
                            drawnFrom(central.jobTimeFactors, uniform(central.seed, JobSpeed, sample, 1, 0, 0));
  if (drawSeed) effects.seed = mix(central.seed ^ mix(SampleSeed ^ mix(sample)));
  return effects;
}

const EffectDeclaration* findEffectDeclaration(std::string_view key) {
  for (const EffectDeclaration& declaration : effectTable())
    if (declaration.key == key) return &declaration;
  return nullptr;
}

}  // namespace ddl
