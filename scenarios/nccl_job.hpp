#pragma once
// What NCCL's tuning model knows of a job on a topology (algorithms/tuning/nccl_tuning_model.hpp), as
// ddlsim's topology files say it: the GPU's generation by its model's name, whether a node's GPUs talk over
// NVLink, NCCL's channels by its rule for the node's NICs (nccl-ring's "channels": "topology"), and the bus
// bandwidth its rings would get: the narrowest link between two GPUs of a node, and across nodes no more
// than every NIC its GPUs leave the node through together (one NIC where each node holds one rank).

#include "algorithms/tuning/nccl_tuning_model.hpp"
#include "topologies/topology.hpp"

namespace ddl {

// 60, 70, 80, 90 for P100, V100, A100, H100 and H200; 0 for a GPU model NCCL's tables do not name.
int computeCapabilityOf(const std::string& gpuModel);

// Whether the caller can simulate NVLS (nccl-nvls, nccl-nvls-tree): ddlsim collective and training
// iterations can; the runtimes cannot place its switches, so NCCL's model weighs NVLS only where they are
// not the caller.
enum class NvlsUse { Never, WhereNcclRunsIt };

// The job of `gpus` ranks packed onto the fewest nodes of `topology`. InvalidArgument("gpus", ...) where they
// leave a node part full beside full ones: NCCL's model takes every node alike.
NcclJob ncclJobOf(const Topology& topology, int gpus, NvlsUse nvls = NvlsUse::Never);

}  // namespace ddl
