#pragma once
// Runs a job as threads of this process, one per rank, over one InProcessFabric.

#include <functional>

#include "runtime/in_process/in_process_engine.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {

// Returns the largest of the ranks' exit statuses. If a rank throws InvalidArgument, the first one is
// rethrown once every thread has ended (the checks that throw it fail alike on every rank). Any other
// exception ends the process through the rank's abortJob, as a crashed MPI rank ends its job.
int runInProcess(int ranks, InProcessEngine& engine, const std::function<int(RankContext&)>& job);

}  // namespace ddl
