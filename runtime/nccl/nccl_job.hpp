#pragma once
// The nccl transport's jobs: one rank per MPI process, one GPU each, NCCL point-to-point.

#include "runtime/rank_context.hpp"

namespace ddl {

// MPI must be initialised. A rank on which NCCL fails ends the job with status 3, through the watchdog.
int launchNcclJob(const JobOptions& options, const RankJob& job);

}  // namespace ddl
