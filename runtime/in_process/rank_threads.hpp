#pragma once
// A job's ranks as threads of this process, whatever carries their messages: host memory (threads),
// cudaMemcpyPeerAsync (cuda-peer) or NCCL (nccl-threads). One thread per rank, a ThreadGroup they share as
// their World, and one rule for failure.

#include <functional>

#include "runtime/in_process/thread_world.hpp"

namespace ddl {

// Runs `rank(r, group)` on a thread per rank r and returns the largest of their exit statuses. If a rank
// throws InvalidArgument, the first one is rethrown once every thread has ended (the checks that throw it
// fail alike on every rank). Any other exception ends the process with status 3, naming the rank and the
// error, as a crashed MPI rank ends its job: the other ranks would wait for it forever.
int runRankThreads(int ranks, const std::function<int(Rank rank, ThreadGroup& group)>& rank);

// Prints "ddlrun: rank R: MESSAGE" and ends the process with status 3, without unwinding the other ranks.
[[noreturn]] void endProcessForRank(Rank rank, const std::string& message);

}  // namespace ddl
