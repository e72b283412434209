#include "runtime/cuda/gpu_compute_emulator.hpp"

#include <cstdint>

#include "runtime/cuda/cuda_error.hpp"

namespace ddl {
namespace {

__device__ __forceinline__ std::uint64_t globalNanoseconds() {
  std::uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Each block waits `nanoseconds` from its own start (blocks start within microseconds of each other;
// phases last milliseconds); the sleep between looks leaves the SM's issue slots to the kernels beside it.
__global__ void busyWait(std::uint64_t nanoseconds) {
  if (threadIdx.x != 0) return;
  const std::uint64_t start = globalNanoseconds();
  while (globalNanoseconds() - start < nanoseconds) __nanosleep(500);
}

}  // namespace

void launchBusyWait(double seconds, int multiprocessors, cudaStream_t stream) {
  if (!(seconds > 0)) return;
  busyWait<<<multiprocessors, 32, 0, stream>>>(static_cast<std::uint64_t>(seconds * 1e9));
  DDL_CUDA(cudaGetLastError());
}

GpuComputeEmulator::GpuComputeEmulator(int device) : device_(device) {
  CurrentDevice current(device_);
  DDL_CUDA(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device_));
  DDL_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  DDL_CUDA(cudaEventCreate(&started_));
  // Loaded now, not at the first phase's launch (CUDA loads kernels lazily): loading mid-run may wait for
  // the device, and so for a transport's kernel that waits for a peer.
  cudaFuncAttributes attributes;
  DDL_CUDA(cudaFuncGetAttributes(&attributes, busyWait));
}

GpuComputeEmulator::~GpuComputeEmulator() {
  CurrentDevice current(device_);
  for (cudaEvent_t event : phaseEnds_) cudaEventDestroy(event);
  cudaEventDestroy(started_);
  cudaStreamDestroy(stream_);
}

void GpuComputeEmulator::start(const std::vector<double>& phaseSeconds) {
  CurrentDevice current(device_);
  while (phaseEnds_.size() < phaseSeconds.size()) {
    cudaEvent_t event;
    DDL_CUDA(cudaEventCreate(&event));  // timed: phaseEnd reads it
    phaseEnds_.push_back(event);
  }
  DDL_CUDA(cudaEventRecord(started_, stream_));
  for (std::size_t phase = 0; phase < phaseSeconds.size(); ++phase) {
    launchBusyWait(phaseSeconds[phase], multiprocessors_, stream_);
    DDL_CUDA(cudaEventRecord(phaseEnds_[phase], stream_));
  }
}

void GpuComputeEmulator::waitForPhase(std::size_t phase) {
  CurrentDevice current(device_);
  DDL_CUDA(cudaEventSynchronize(phaseEnds_.at(phase)));
}

double GpuComputeEmulator::phaseEnd(std::size_t phase) const {
  CurrentDevice current(device_);
  float milliseconds = 0;
  DDL_CUDA(cudaEventElapsedTime(&milliseconds, started_, phaseEnds_.at(phase)));
  return milliseconds / 1e3;
}

}  // namespace ddl
