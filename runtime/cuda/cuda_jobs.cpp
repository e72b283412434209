#include "runtime/cuda/cuda_jobs.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "algorithms/schedule/invalid_argument.hpp"
#include "runtime/cuda/cuda_peer_engine.hpp"
#include "runtime/cuda/gpu_compute_emulator.hpp"
#include "runtime/in_process/in_process_job.hpp"
#include "runtime/mpi/mpi_world.hpp"
#include "runtime/nccl/nccl_baseline.hpp"
#include "runtime/nccl/nccl_transport.hpp"

namespace ddl {
namespace {

void requireGpu(const JobOptions& options) {
  std::string why;
  if (cudaDevices(&why) == 0)
    throw InvalidArgument("--transport", std::string(toString(options.transport)) + " needs a CUDA GPU: " + why);
}

}  // namespace

int cudaDevices(std::string* why) {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess) {
    if (why) *why = cudaGetErrorString(status);
    cudaGetLastError();
    return 0;
  }
  if (devices == 0 && why) *why = "no CUDA device is visible";
  return devices;
}

double smallestFreeGpuMemoryBytes() {
  const int devices = cudaDevices();
  double smallest = 0;
  bool found = false;
  int current = 0;
  cudaGetDevice(&current);
  for (int device = 0; device < devices; ++device) {
    std::size_t free = 0, total = 0;
    if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free, &total) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    smallest = found ? std::min(smallest, static_cast<double>(free)) : static_cast<double>(free);
    found = true;
  }
  cudaSetDevice(current);
  return smallest;
}

int launchNcclJob(const JobOptions& options, const std::function<int(RankContext&)>& job) {
  requireGpu(options);
  MpiWorld world(MPI_COMM_WORLD, options.watchdog);
  try {
    NcclTransport transport(MPI_COMM_WORLD, options.watchdog);
    GpuComputeEmulator compute(transport.device());
    NcclBaseline nccl(transport);
    RankContext context{world, transport, compute, options.baseline == "nccl" ? &nccl : nullptr};
    return job(context);
  } catch (const TransportError& error) {
    // NCCL failed on this rank, setting up or running the baseline: the others would wait for it forever.
    if (options.watchdog) options.watchdog->failJob(error.what(), 3);
    std::fprintf(stderr, "ddlrun: rank %d: %s\n", world.rank(), error.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
}

int launchCudaPeerJob(const JobOptions& options, const std::function<int(RankContext&)>& job) {
  requireGpu(options);
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
