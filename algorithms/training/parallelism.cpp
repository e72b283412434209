#include "algorithms/training/parallelism.hpp"

namespace ddl {

const char* parallelismName(Parallelism parallelism) {
  switch (parallelism) {
    case Parallelism::Ddp: return "ddp";
    case Parallelism::Zero1: return "zero1";
    case Parallelism::Zero2: return "zero2";
    case Parallelism::Zero3: return "zero3";
    case Parallelism::Fsdp: return "fsdp";
    case Parallelism::Hybrid: return "hybrid";
  }
  return "ddp";
}

std::optional<Parallelism> parallelismNamed(std::string_view name) {
  for (Parallelism parallelism :
       {Parallelism::Ddp, Parallelism::Zero1, Parallelism::Zero2, Parallelism::Zero3, Parallelism::Fsdp, Parallelism::Hybrid})
    if (name == parallelismName(parallelism)) return parallelism;
  return std::nullopt;
}

bool shardsParameters(Parallelism parallelism) {
  return parallelism == Parallelism::Zero3 || parallelism == Parallelism::Fsdp || parallelism == Parallelism::Hybrid;
}
bool isSharded(Parallelism parallelism) { return parallelism != Parallelism::Ddp; }

int shardingRanks(Parallelism parallelism, int gpus, int ranksPerNode) {
  if (!isSharded(parallelism)) return 1;
  return parallelism == Parallelism::Hybrid && ranksPerNode > 0 && ranksPerNode < gpus ? ranksPerNode : gpus;
}

double modelStateBytesPerGpu(Parallelism parallelism, const ModelStateBytes& perParameter, std::int64_t parameters, int shardRanks,
                             std::int64_t largestUnitParameters) {
  const double p = static_cast<double>(parameters);
  const double n = shardRanks;
  switch (parallelism) {
    case Parallelism::Ddp: return perParameter.total() * p;
    case Parallelism::Zero1: return (perParameter.weights + perParameter.gradients) * p + perParameter.optimizer * p / n;
    case Parallelism::Zero2: return perParameter.weights * p + (perParameter.gradients + perParameter.optimizer) * p / n;
    case Parallelism::Zero3:
    case Parallelism::Fsdp:
    case Parallelism::Hybrid:
      // One GPU gathers nothing: its shard is the whole model.
      return perParameter.total() * p / n + (shardRanks > 1 ? 2.0 * perParameter.weights * static_cast<double>(largestUnitParameters) : 0);
  }
  return perParameter.total() * p;
}

}  // namespace ddl
