#include "runtime/cuda/cuda_error.hpp"

#include <string>

#include "runtime/transport.hpp"

namespace ddl {

void checkCuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw TransportError(std::string(call) + ": " + cudaGetErrorString(status));
}

}  // namespace ddl
