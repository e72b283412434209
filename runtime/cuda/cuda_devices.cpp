#include "runtime/cuda/cuda_devices.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/invalid_argument.hpp"

namespace ddl {

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

bool isDeviceMemory(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

void requireCudaDevice(std::string_view transport) {
  std::string why;
  if (cudaDevices(&why) == 0) throw InvalidArgument("--transport", "'" + std::string(transport) + "' needs a CUDA GPU: " + why);
}

std::string describeCudaDevice(int device) {
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) {
    cudaGetLastError();
    return std::to_string(device);
  }
  char text[320];
  std::snprintf(text, sizeof text, "%2d [%04x:%02x:%02x] %s", device, properties.pciDomainID, properties.pciBusID,
                properties.pciDeviceID, properties.name);
  return text;
}

double smallestFreeGpuMemoryBytes(const std::vector<int>& devices) {
  double smallest = 0;
  bool found = false;
  // The last device asked stays current: setting back the one current before (device 0 where none was set)
  // would make a context there too, since CUDA 12 makes one on cudaSetDevice.
  for (int device : devices) {
    std::size_t free = 0, total = 0;
    if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free, &total) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    smallest = found ? std::min(smallest, static_cast<double>(free)) : static_cast<double>(free);
    found = true;
  }
  return smallest;
}

void widenCudaWorkQueues() { setenv("CUDA_DEVICE_MAX_CONNECTIONS", std::to_string(kCudaWorkQueues).c_str(), 0); }

}  // namespace ddl
