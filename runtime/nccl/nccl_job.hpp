#pragma once
// The NCCL transports' jobs, one GPU per rank, NCCL point-to-point: `nccl`, one rank per MPI process (built
// with MPI), and `nccl-threads`, the ranks as threads of this process (every build with CUDA).

#include "runtime/rank_context.hpp"

namespace ddl {

// MPI must be initialised. A rank on which NCCL fails ends the job with status 3, through the watchdog.
int launchNcclJob(const JobOptions& options, const RankJob& job);

// options.ranks threads, rank r on GPU r; a rank on which NCCL fails ends the process with status 3.
int launchNcclThreadsJob(const JobOptions& options, const RankJob& job);

}  // namespace ddl
