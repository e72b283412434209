#include "runtime/cuda_peer/cuda_peer_job.hpp"

#include <cstdio>
#include <memory>

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda_peer/cuda_peer_engine.hpp"
#include "runtime/in_process/in_process_job.hpp"

namespace ddl {

int launchCudaPeerJob(const JobOptions& options, const RankJob& job) {
  requireCudaDevice("cuda-peer");
  std::unique_ptr<CudaPeerEngine> engine;
  try {
    engine = std::make_unique<CudaPeerEngine>(options.ranks);
  } catch (const TransportError& error) {
    std::fprintf(stderr, "ddlrun: setting up the CUDA peer transport: %s\n", error.what());
    return 3;
  }
  return runInProcess(options.ranks, *engine, job);
}

}  // namespace ddl
