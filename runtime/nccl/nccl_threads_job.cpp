// nccl-threads: NCCL's ranks as threads of one process, rank r on GPU r. It needs no MPI, so it is how a
// machine with CUDA and NCCL alone (the GPU validation's, scripts/validate-gpu) runs the NCCL transport.
#include <cstdio>
#include <memory>

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/gpu_compute_emulator.hpp"
#include "runtime/in_process/rank_threads.hpp"
#include "runtime/nccl/nccl_collectives.hpp"
#include "runtime/nccl/nccl_job.hpp"
#include "runtime/nccl/nccl_transport.hpp"

namespace ddl {
namespace {

// The unique id is made once, before the threads start, so sharing it needs no collective; nothing watches
// the threads for silence: a wait that never ends meets the transport's patience, and the rank that gives
// up ends the process.
class NcclThreadsBootstrap final : public NcclBootstrap {
 public:
  NcclThreadsBootstrap(Rank rank, int size, const ncclUniqueId& id) : rank_(rank), size_(size), id_(id) {}
  Rank rank() const override { return rank_; }
  int size() const override { return size_; }
  int device(int devices) override {
    if (size_ > devices)
      throw TransportError(std::to_string(size_) + " ranks and " + std::to_string(devices) +
                           " GPUs visible: NCCL takes one GPU per rank");
    return rank_;
  }
  ncclUniqueId uniqueId() override { return id_; }
  std::unique_ptr<Waiting> waitingIn(const char*, bool) override { return nullptr; }
  [[noreturn]] void endJob(const std::string& message) override { endProcessForRank(rank_, message); }

 private:
  Rank rank_;
  int size_;
  ncclUniqueId id_;
};

}  // namespace

int launchNcclThreadsJob(const JobOptions& options, const RankJob& job) {
  requireCudaDevice("nccl-threads");
  ncclUniqueId id{};
  if (const ncclResult_t made = ncclGetUniqueId(&id); made != ncclSuccess) {
    std::fprintf(stderr, "ddlrun: ncclGetUniqueId: %s\n", ncclGetErrorString(made));
    return 3;
  }
  return runRankThreads(options.ranks, [&](Rank rank, ThreadGroup& group) {
    NcclTransport transport(std::make_unique<NcclThreadsBootstrap>(rank, options.ranks, id));
    GpuComputeEmulator compute(transport.device());
    NcclCollectives nccl(transport);
    ThreadWorld world(group, rank);
    RankContext context{world, transport, compute, &nccl};
    return job(context);
  });
}

}  // namespace ddl
