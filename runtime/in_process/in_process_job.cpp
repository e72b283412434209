#include "runtime/in_process/in_process_job.hpp"

#include <memory>

#include "runtime/in_process/host_engine.hpp"
#include "runtime/in_process/in_process_transport.hpp"
#include "runtime/in_process/rank_threads.hpp"

namespace ddl {

int runInProcess(int ranks, InProcessEngine& engine, const RankJob& job) {
  InProcessFabric fabric(ranks, engine);
  return runRankThreads(ranks, [&](Rank rank, ThreadGroup& group) {
    InProcessTransport transport(fabric, rank);
    engine.bindThread(rank);
    ThreadWorld world(group, rank);
    const std::unique_ptr<ComputeEmulator> compute = engine.computeEmulator(rank);
    RankContext context{world, transport, *compute, nullptr};
    return job(context);
  });
}

int launchThreadsJob(const JobOptions& options, const RankJob& job) {
  HostEngine engine(options.hostCompute);
  return runInProcess(options.ranks, engine, job);
}

}  // namespace ddl
