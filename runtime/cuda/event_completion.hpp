#pragma once
// A Completion that is a CUDA event recorded after the work on a stream.

#include <cuda_runtime_api.h>

#include <memory>

#include "runtime/completion.hpp"
#include "runtime/cuda/cuda_error.hpp"

namespace ddl {

class EventCompletion final : public Completion {
 public:
  // Records a new event on `stream`, which must belong to the current device.
  explicit EventCompletion(cudaStream_t stream) {
    DDL_CUDA(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    const cudaError_t recorded = cudaEventRecord(event_, stream);
    if (recorded != cudaSuccess) cudaEventDestroy(event_);
    checkCuda(recorded, "cudaEventRecord");
  }
  ~EventCompletion() override { cudaEventDestroy(event_); }
  EventCompletion(const EventCompletion&) = delete;
  EventCompletion& operator=(const EventCompletion&) = delete;

  bool done() override {
    const cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) return false;
    checkCuda(status, "cudaEventQuery");
    return true;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace ddl
