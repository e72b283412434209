#pragma once
// The CUDA devices this process can see, asked before a GPU job starts.

#include <string>
#include <string_view>
#include <vector>

namespace ddl {

// The number of visible CUDA devices; 0, with CUDA's reason in `why`, where there is none or no driver.
int cudaDevices(std::string* why = nullptr);

// InvalidArgument("--transport", "'nccl' needs a CUDA GPU: <CUDA's reason>") where there is none.
void requireCudaDevice(std::string_view transport);

// " 0 [0000:04:00] NVIDIA H200": the device's number, PCI address and name, as nccl-tests names it.
std::string describeCudaDevice(int device);

// Whether kernels and copies read `pointer` as GPU memory (a device or managed allocation); false for host
// memory, pinned or not, and wherever CUDA cannot say.
bool isDeviceMemory(const void* pointer);

// The free memory of whichever of `devices` has the least (cudaMemGetInfo); 0 where none answers. Each device
// asked gets this process's CUDA context on it, so ask only those the process will use; the last one asked
// is left current.
double smallestFreeGpuMemoryBytes(const std::vector<int>& devices);

// Before this process makes its first CUDA context: 32 hardware work queues per device, CUDA's most, in
// place of its default 8 (CUDA_DEVICE_MAX_CONNECTIONS, unless the environment sets it already). The CUDA
// peer transport runs a stream per sender, receiver and channel beside each rank's compute stream; on 8
// queues a copy lands behind an emulated compute kernel it does not depend on.
void widenCudaWorkQueues();
inline constexpr int kCudaWorkQueues = 32;

}  // namespace ddl
