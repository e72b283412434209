#pragma once
// Runs a job as threads of this process, one per rank, over one InProcessFabric: the threads transport on
// host memory, and the engine of any other in-process transport (cuda-peer).

#include "runtime/in_process/in_process_engine.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {

// Returns the largest of the ranks' exit statuses; failures as runRankThreads (rank_threads.hpp) says.
int runInProcess(int ranks, InProcessEngine& engine, const RankJob& job);

// The threads transport: options.ranks threads, host memory, memcpy.
int launchThreadsJob(const JobOptions& options, const RankJob& job);

}  // namespace ddl
