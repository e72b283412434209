#pragma once
// How data parallelism holds the model on each GPU: replicated, as DDP, Horovod and DDL do, or sharded, as
// ZeRO (Rajbhandari et al., SC'20) and PyTorch FSDP (Zhao et al., VLDB'23) do. The plan decides what each
// GPU keeps (modelStateBytesPerGpu) and which collectives an iteration runs (iteration_steps.hpp).

#include <cstdint>
#include <optional>
#include <string_view>

namespace ddl {

enum class Parallelism {
  Ddp,    // every GPU holds every state; one allreduce per gradient bucket
  Zero1,  // optimizer state sharded; gradients reduce-scattered, updated parameters all-gathered after the step
  Zero2,  // the same collectives, the gradients sharded as well
  Zero3,  // every state sharded; each unit's parameters all-gathered before its forward and again before its
          // backward, its gradients reduce-scattered after it
  Fsdp,   // PyTorch FSDP's FULL_SHARD: zero3's collectives, under the name PyTorch users know it by
  Hybrid, // FSDP's HYBRID_SHARD: fsdp within each node, and each node's shard of a unit's gradients
          // allreduced across the nodes after its reduce-scatter
};

// "ddp", "zero1", "zero2", "zero3", "fsdp", "hybrid", as scenarios and results name them.
const char* parallelismName(Parallelism parallelism);
std::optional<Parallelism> parallelismNamed(std::string_view name);
inline constexpr std::string_view kParallelismNames[] = {"ddp", "zero1", "zero2", "zero3", "fsdp", "hybrid"};

// Whether each unit's parameters are gathered before use and released after (zero3, fsdp, hybrid).
bool shardsParameters(Parallelism parallelism);
bool isSharded(Parallelism parallelism);
// The GPUs one copy of the model is sharded over: all `gpus`, or under hybrid a node's (`ranksPerNode`, or
// all where fewer); 1 under ddp.
int shardingRanks(Parallelism parallelism, int gpus, int ranksPerNode);

// What one GPU keeps per parameter of the model when it holds all of them (ZeRO, section 3.1): with Adam
// in mixed precision, 16-bit weights and gradients (2 + 2 bytes) and the fp32 master weights and two
// moments (12); with SGD's momentum in fp32, weights, gradients and momentum (4 + 4 + 4).
struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer = 0;
  double total() const { return weights + gradients + optimizer; }
};

// The model states one GPU holds under `parallelism`, in bytes, for a model of `parameters` sharded over
// `shardRanks` GPUs (shardingRanks) whose largest unit (bucket) has `largestUnitParameters`. ZeRO's section
// 3.1 forms with N = shardRanks: ddp (W+G+O)P, zero1 (W+G)P + OP/N, zero2 WP + (G+O)P/N, zero3 (W+G+O)P/N,
// plus for zero3, fsdp and hybrid the parameters of the two units gathered at once (the one computing and
// the one prefetched). Activations come on top.
double modelStateBytesPerGpu(Parallelism parallelism, const ModelStateBytes& perParameter, std::int64_t parameters, int shardRanks,
                             std::int64_t largestUnitParameters);

}  // namespace ddl
