#include "runtime/cuda/reduce_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>

#include "runtime/cuda/cuda_error.hpp"

namespace ddl {
namespace {

template <class T>
__device__ __forceinline__ T add(T a, T b) {
  return a + b;
}
template <>
__device__ __forceinline__ __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __float2bfloat16_rn(__bfloat162float(a) + __bfloat162float(b));
}
template <>
__device__ __forceinline__ __half add(__half a, __half b) {
  return __float2half_rn(__half2float(a) + __half2float(b));
}

// 16 bytes of elements, loaded and stored as one vector.
template <class T>
union Vector {
  static constexpr int kElements = 16 / sizeof(T);
  uint4 raw;
  T elements[kElements];
};

// Threads stride over the vectors, two at a time so that each has four 16-byte loads in flight: enough
// to keep HBM busy with a grid of a few blocks per SM. No __restrict__: in place, out is a.
template <class T>
__global__ void __launch_bounds__(512) sumVectors(T* out, const T* a, const T* b,
                                                   std::size_t count, std::size_t head, std::size_t vectors) {
  constexpr int kPer = Vector<T>::kElements;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  if (thread < head) out[thread] = add(a[thread], b[thread]);
  const uint4* va = reinterpret_cast<const uint4*>(a + head);
  const uint4* vb = reinterpret_cast<const uint4*>(b + head);
  uint4* vo = reinterpret_cast<uint4*>(out + head);
  std::size_t v = thread;
  for (; v + threads < vectors; v += 2 * threads) {
    Vector<T> x0, y0, x1, y1;
    x0.raw = va[v];
    y0.raw = vb[v];
    x1.raw = va[v + threads];
    y1.raw = vb[v + threads];
#pragma unroll
    for (int k = 0; k < kPer; ++k) {
      x0.elements[k] = add(x0.elements[k], y0.elements[k]);
      x1.elements[k] = add(x1.elements[k], y1.elements[k]);
    }
    vo[v] = x0.raw;
    vo[v + threads] = x1.raw;
  }
  if (v < vectors) {
    Vector<T> x, y;
    x.raw = va[v];
    y.raw = vb[v];
#pragma unroll
    for (int k = 0; k < kPer; ++k) x.elements[k] = add(x.elements[k], y.elements[k]);
    vo[v] = x.raw;
  }
  for (std::size_t i = head + vectors * kPer + thread; i < count; i += threads) out[i] = add(a[i], b[i]);
}

template <class T>
__global__ void __launch_bounds__(512) sumElements(T* out, const T* a, const T* b, std::size_t count) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += threads)
    out[i] = add(a[i], b[i]);
}

constexpr int kThreads = 512;

// A few blocks per SM of the current device, fewer for small sums so that no block is idle.
int blocksFor(std::size_t work) {
  constexpr int kDevices = 64;
  static std::atomic<int> blocksOn[kDevices] = {};  // 0 until looked up
  int device = 0;
  DDL_CUDA(cudaGetDevice(&device));
  int maximum = device < kDevices ? blocksOn[device].load(std::memory_order_relaxed) : 0;
  if (maximum == 0) {
    int sms = 0;
    DDL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    maximum = 4 * sms;
    if (device < kDevices) blocksOn[device].store(maximum, std::memory_order_relaxed);
  }
  const std::size_t needed = (work + kThreads - 1) / kThreads;
  return static_cast<int>(needed < static_cast<std::size_t>(maximum) ? (needed > 0 ? needed : 1) : maximum);
}

std::uintptr_t misalignment(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16; }

template <class T>
void launch(void* out, const void* a, const void* b, std::size_t count, cudaStream_t stream) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  if (misalignment(out) == misalignment(a) && misalignment(out) == misalignment(b)) {
    constexpr std::size_t kPer = Vector<T>::kElements;
    const std::size_t head = misalignment(out) == 0 ? 0 : std::min(count, (16 - misalignment(out)) / sizeof(T));
    const std::size_t vectors = (count - head) / kPer;
    sumVectors<T><<<blocksFor(vectors > head ? vectors : head), kThreads, 0, stream>>>(o, x, y, count, head, vectors);
  } else {
    sumElements<T><<<blocksFor(count), kThreads, 0, stream>>>(o, x, y, count);
  }
  DDL_CUDA(cudaGetLastError());
}

}  // namespace

bool sumIsVectorised(const void* out, const void* a, const void* b, DataType) {
  return misalignment(out) == misalignment(a) && misalignment(out) == misalignment(b);
}

void launchSum(void* out, const void* a, const void* b, std::size_t count, DataType type, cudaStream_t stream) {
  if (count == 0) return;
  switch (type) {
    case DataType::Float32: return launch<float>(out, a, b, count, stream);
    case DataType::Float64: return launch<double>(out, a, b, count, stream);
    case DataType::BFloat16: return launch<__nv_bfloat16>(out, a, b, count, stream);
    case DataType::Float16: return launch<__half>(out, a, b, count, stream);
  }
}

}  // namespace ddl
