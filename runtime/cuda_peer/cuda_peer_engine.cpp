#include "runtime/cuda_peer/cuda_peer_engine.hpp"

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/cuda_error.hpp"
#include "runtime/cuda/event_completion.hpp"
#include "runtime/cuda/gpu_compute_emulator.hpp"
#include "runtime/cuda/reduce_kernels.hpp"
#include "runtime/transport.hpp"

namespace ddl {

CudaPeerEngine::CudaPeerEngine(int ranks) {
  DDL_CUDA(cudaGetDeviceCount(&devices_));
  if (devices_ < 1) throw TransportError("no CUDA device");
  for (int a = 0; a < devices_; ++a) {
    CurrentDevice current(a);
    loadReduceKernels();
    for (int b = 0; b < devices_; ++b) {
      int possible = 0;
      if (a != b && cudaDeviceCanAccessPeer(&possible, a, b) == cudaSuccess && possible) {
        const cudaError_t status = cudaDeviceEnablePeerAccess(b, 0);
        if (status != cudaSuccess && status != cudaErrorPeerAccessAlreadyEnabled) checkCuda(status, "cudaDeviceEnablePeerAccess");
        cudaGetLastError();  // "already enabled" is sticky until read
      }
    }
  }
  for (Rank rank = 0; rank < ranks; ++rank) {
    CurrentDevice current(deviceOf(rank));
    cudaStream_t stream;
    DDL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    reduceStreams_.push_back(stream);
  }
}

CudaPeerEngine::~CudaPeerEngine() {
  for (cudaStream_t stream : reduceStreams_) cudaStreamDestroy(stream);
  for (const auto& [key, stream] : copyStreams_) cudaStreamDestroy(stream);
}

void CudaPeerEngine::bindThread(Rank rank) { DDL_CUDA(cudaSetDevice(deviceOf(rank))); }

cudaStream_t CudaPeerEngine::copyStream(Rank from, Rank to, Channel channel) {
  std::lock_guard lock(streamsMutex_);
  auto [it, added] = copyStreams_.try_emplace({from, to, channel}, nullptr);
  if (added) {
    CurrentDevice current(deviceOf(from));
    DDL_CUDA(cudaStreamCreateWithFlags(&it->second, cudaStreamNonBlocking));
  }
  return it->second;
}

std::shared_ptr<Completion> CudaPeerEngine::completionAfter(cudaStream_t stream, int device) {
  CurrentDevice current(device);
  return std::make_shared<EventCompletion>(stream);
}

std::shared_ptr<Completion> CudaPeerEngine::copy(Rank from, Rank to, Channel channel, void* destination, const void* source,
                                                 std::size_t bytes) {
  // Whichever rank's thread matched the message enqueues it, on the sender's device and stream.
  const cudaStream_t stream = copyStream(from, to, channel);
  CurrentDevice current(deviceOf(from));
  DDL_CUDA(cudaMemcpyPeerAsync(destination, deviceOf(to), source, deviceOf(from), bytes, stream));
  return completionAfter(stream, deviceOf(from));
}

std::shared_ptr<Completion> CudaPeerEngine::reduce(Rank rank, void* into, const void* local, const void* from,
                                                   std::size_t count, DataType type, ReduceOp op) {
  const cudaStream_t stream = reduceStreams_[static_cast<std::size_t>(rank)];
  launchReduce(into, local, from, count, type, op, stream);
  return completionAfter(stream, deviceOf(rank));
}

void* CudaPeerEngine::allocate(Rank rank, std::size_t bytes) {
  CurrentDevice current(deviceOf(rank));
  void* memory = nullptr;
  DDL_CUDA(cudaMalloc(&memory, bytes));
  return memory;
}

void CudaPeerEngine::deallocate(Rank rank, void* memory) {
  CurrentDevice current(deviceOf(rank));
  cudaFree(memory);
}

void CudaPeerEngine::upload(Rank rank, void* to, const void* from, std::size_t bytes) {
  CurrentDevice current(deviceOf(rank));
  DDL_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the copy has landed, and the streams that read the
  // buffer next do not wait for the default stream (non-blocking): wait for it here.
  DDL_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

void CudaPeerEngine::download(Rank rank, void* to, const void* from, std::size_t bytes) {
  CurrentDevice current(deviceOf(rank));
  DDL_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost));
}

void CudaPeerEngine::copy(Rank rank, void* to, const void* from, std::size_t bytes) {
  CurrentDevice current(deviceOf(rank));
  DDL_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice));
  DDL_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

std::string CudaPeerEngine::deviceDescription(Rank rank) const { return describeCudaDevice(deviceOf(rank)); }

std::unique_ptr<ComputeEmulator> CudaPeerEngine::computeEmulator(Rank rank) {
  return std::make_unique<GpuComputeEmulator>(deviceOf(rank));
}

}  // namespace ddl
