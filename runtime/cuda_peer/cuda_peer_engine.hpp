#pragma once
// The in-process engine on GPUs: rank r lives on visible device r mod (device count), so that a server's
// GPUs each hold a rank, and a single GPU holds them all (which NCCL refuses: two ranks of one
// communicator on one GPU). A message is one cudaMemcpyPeerAsync from the sender's buffer to the
// receiver's, over NVLink or PCIe between GPUs, or within one GPU's memory, on a stream of its own per
// sender, receiver and channel (a rank's messages to different peers move together, as the simulator
// has them); a reduction is launchReduce on the rank's own stream; each is followed by an event that tells
// the transport it has finished. Compute is emulated by GpuComputeEmulator.

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "runtime/in_process/in_process_engine.hpp"

namespace ddl {

class CudaPeerEngine final : public InProcessEngine {
 public:
  // Throws TransportError if there is no GPU. Enables peer access between every two devices that allow it
  // (elsewhere CUDA stages copies through the host).
  explicit CudaPeerEngine(int ranks);
  ~CudaPeerEngine() override;

  std::string name() const override { return "cuda-peer"; }
  int deviceOf(Rank rank) const { return rank % devices_; }
  void bindThread(Rank rank) override;
  std::shared_ptr<Completion> copy(Rank from, Rank to, Channel channel, void* destination, const void* source,
                                   std::size_t bytes) override;
  std::shared_ptr<Completion> reduce(Rank rank, void* into, const void* local, const void* from, std::size_t count,
                                     DataType type, ReduceOp op) override;
  std::chrono::microseconds pollInterval() const override { return std::chrono::microseconds(5); }

  bool memoryIsHost() const override { return false; }
  void* allocate(Rank rank, std::size_t bytes) override;
  void deallocate(Rank rank, void* memory) override;
  void upload(Rank rank, void* to, const void* from, std::size_t bytes) override;
  void download(Rank rank, void* to, const void* from, std::size_t bytes) override;
  void copy(Rank rank, void* to, const void* from, std::size_t bytes) override;
  std::string deviceDescription(Rank rank) const override;
  std::unique_ptr<ComputeEmulator> computeEmulator(Rank rank) override;

 private:
  cudaStream_t copyStream(Rank from, Rank to, Channel channel);
  // Records an event after the work just enqueued on `stream` (on `device`).
  std::shared_ptr<Completion> completionAfter(cudaStream_t stream, int device);

  int devices_ = 0;
  std::vector<cudaStream_t> reduceStreams_;  // per rank
  std::mutex streamsMutex_;
  std::map<std::tuple<Rank, Rank, Channel>, cudaStream_t> copyStreams_;  // (from, to, channel)
};

}  // namespace ddl
