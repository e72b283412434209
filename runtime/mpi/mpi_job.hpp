#pragma once
// The mpi transport's jobs: one rank per MPI process, host memory, MPI point-to-point.

#include "runtime/rank_context.hpp"

namespace ddl {

// MPI must be initialised.
int launchMpiJob(const JobOptions& options, const RankJob& job);

}  // namespace ddl
