#include "runtime/in_process/in_process_job.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "common/invalid_argument.hpp"
#include "runtime/in_process/host_engine.hpp"
#include "runtime/in_process/in_process_transport.hpp"
#include "runtime/in_process/thread_world.hpp"

namespace ddl {

int runInProcess(int ranks, InProcessEngine& engine, const RankJob& job) {
  InProcessFabric fabric(ranks, engine);
  ThreadGroup group(ranks);
  std::vector<int> statuses(static_cast<std::size_t>(ranks), 0);
  std::mutex failureMutex;
  std::exception_ptr invalidArgument;
  std::vector<std::thread> threads;
  for (Rank rank = 0; rank < ranks; ++rank) {
    const auto body = [&, rank] {
      InProcessTransport transport(fabric, rank);
      try {
        engine.bindThread(rank);
        ThreadWorld world(group, rank);
        const std::unique_ptr<ComputeEmulator> compute = engine.computeEmulator(rank);
        RankContext context{world, transport, *compute, nullptr};
        statuses[static_cast<std::size_t>(rank)] = job(context);
      } catch (const InvalidArgument&) {
        std::lock_guard lock(failureMutex);
        if (!invalidArgument) invalidArgument = std::current_exception();
      } catch (const std::exception& error) {
        transport.abortJob(error.what());
      }
    };
    try {
      threads.emplace_back(body);
    } catch (const std::system_error& error) {
      // The ranks already started wait for this one: end the job, as a failing rank does.
      std::fprintf(stderr, "ddlrun: cannot start the thread of rank %d: %s\n", rank, error.what());
      std::fflush(stderr);
      std::_Exit(3);
    }
  }
  for (std::thread& thread : threads) thread.join();
  if (invalidArgument) std::rethrow_exception(invalidArgument);
  int status = 0;
  for (int s : statuses) status = std::max(status, s);
  return status;
}

int launchThreadsJob(const JobOptions& options, const RankJob& job) {
  HostEngine engine(options.hostCompute);
  return runInProcess(options.ranks, engine, job);
}

}  // namespace ddl
