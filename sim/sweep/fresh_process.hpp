#pragma once
// Runs a computation in a child process forked for it, and returns what it computed.
//
// SimGrid's clock is process-wide and runs on from one engine to the next, so the same simulation started
// at a later clock rounds its times differently, and where ranks are out of step (jitter) a rounding can
// change which of two nearly simultaneous events comes first: results then depend on what the process
// simulated before (measured: 5e-5 of a bucket's allreduce time). Each scenario point runs in a fresh
// process, so a point is the same whatever ran before it, in whatever split of a sweep.
//
// The child's InvalidArgument and SimulationError are thrown again in the parent, with their messages;
// any other failure of the child (another exception, a signal) is a SimulationError.

#include <cstddef>
#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

namespace ddl {

// The cores of this machine: one simulation a core, the default of every --jobs.
inline int defaultJobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

std::vector<double> inFreshProcess(const std::function<std::vector<double>()>& compute);

// Every task in a fresh process, at most `jobs` at a time, the results in the tasks' order; `done`, if
// given, is called with each task's index and result as it finishes. On a failure the others are stopped,
// and the failure (of the first task to fail) thrown as inFreshProcess throws it.
std::vector<std::vector<double>> inFreshProcesses(
    const std::vector<std::function<std::vector<double>()>>& tasks, int jobs,
    const std::function<void(std::size_t, const std::vector<double>&)>& done = {});

}  // namespace ddl
