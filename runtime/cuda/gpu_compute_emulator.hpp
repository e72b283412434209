#pragma once
// Compute emulated on a GPU: each phase is a kernel of one 32-thread block per SM that waits, reading the
// GPU's global nanosecond timer between short sleeps, until the phase's time has passed, followed by an
// event. The phase's time is exact by construction and ordered on the GPU like a real backward pass, so
// the transport's copies and reductions overlap it as they would a real one, and the host is free to
// drive communication. What it does not reproduce is contention: it takes almost none of the SMs' issue
// slots or memory bandwidth, where a real backward pass would slow the reductions beside it, and a phase
// cannot be slowed by them either (phaseEnd, timed by events, measures that it is not).

#include <cuda_runtime_api.h>

#include <vector>

#include "runtime/compute/compute_emulator.hpp"

namespace ddl {

class GpuComputeEmulator final : public ComputeEmulator {
 public:
  explicit GpuComputeEmulator(int device);
  ~GpuComputeEmulator() override;
  GpuComputeEmulator(const GpuComputeEmulator&) = delete;
  GpuComputeEmulator& operator=(const GpuComputeEmulator&) = delete;

  void start(const std::vector<double>& phaseSeconds) override;
  void waitForPhase(std::size_t phase) override;
  double phaseEnd(std::size_t phase) const override;
  std::string description() const override { return "GPU timer kernels"; }

 private:
  int device_;
  int multiprocessors_ = 1;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t started_ = nullptr;  // recorded before the last start's first phase
  std::vector<cudaEvent_t> phaseEnds_;
};

// Enqueues a kernel that lasts `seconds` on `stream` (nothing for zero). For the emulator and its tests.
void launchBusyWait(double seconds, int multiprocessors, cudaStream_t stream);

}  // namespace ddl
