#pragma once
// A failed CUDA runtime call becomes a TransportError naming the call and CUDA's reason, as nccl-tests'
// CUDACHECK does, except that the caller decides whether the job can go on. Kept free of the schedule
// headers, which use C++20, so that .cu files (compiled as C++17) can include it.

#include <cuda_runtime_api.h>

namespace ddl {

// Throws TransportError("CALL: reason") unless `status` is cudaSuccess.
void checkCuda(cudaError_t status, const char* call);

// Makes `device` current for the calling thread while it lives, and restores the previous one.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device) {
    checkCuda(cudaGetDevice(&previous_), "cudaGetDevice");
    if (device != previous_) checkCuda(cudaSetDevice(device), "cudaSetDevice");
  }
  ~CurrentDevice() { cudaSetDevice(previous_); }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace ddl

#define DDL_CUDA(call) ::ddl::checkCuda((call), #call)
