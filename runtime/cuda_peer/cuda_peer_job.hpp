#pragma once
// The cuda-peer transport's jobs: every rank a thread of this process on the visible GPUs (several on one GPU
// if need be), moving bytes with cudaMemcpyPeerAsync.

#include "runtime/rank_context.hpp"

namespace ddl {

int launchCudaPeerJob(const JobOptions& options, const RankJob& job);

}  // namespace ddl
