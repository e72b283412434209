#include "runtime/cuda/reduce_kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "runtime/cuda/cuda_error.hpp"
#include "runtime/reduce_alignment.hpp"

namespace ddl {
namespace {

// The four operators on one element type, as device functors. The 16-bit floats combine in float and round
// to nearest even, as the host reference does; signed integers add and multiply as their unsigned twins,
// so that overflow wraps (host_reduce.cpp says why).
template <class T>
struct Widened {
  using Type = T;
  __device__ static T of(T value) { return value; }
  __device__ static T back(T value) { return value; }
};
template <>
struct Widened<__nv_bfloat16> {
  using Type = float;
  __device__ static float of(__nv_bfloat16 value) { return __bfloat162float(value); }
  __device__ static __nv_bfloat16 back(float value) { return __float2bfloat16_rn(value); }
};
template <>
struct Widened<__half> {
  using Type = float;
  __device__ static float of(__half value) { return __half2float(value); }
  __device__ static __half back(float value) { return __float2half_rn(value); }
};

template <class T, bool = std::is_integral_v<T>>
struct Unsigned {
  using Type = T;
};
template <class T>
struct Unsigned<T, true> {
  using Type = std::make_unsigned_t<T>;
};
template <class T>
using Arithmetic = typename Unsigned<T>::Type;

struct Sum {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    using W = Widened<T>;
    using A = Arithmetic<typename W::Type>;
    return W::back(static_cast<typename W::Type>(static_cast<A>(W::of(a)) + static_cast<A>(W::of(b))));
  }
};
struct Product {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    using W = Widened<T>;
    using A = Arithmetic<typename W::Type>;
    return W::back(static_cast<typename W::Type>(static_cast<A>(W::of(a)) * static_cast<A>(W::of(b))));
  }
};
struct Min {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    using W = Widened<T>;
    return W::of(b) < W::of(a) ? b : a;
  }
};
struct Max {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    using W = Widened<T>;
    return W::of(a) < W::of(b) ? b : a;
  }
};

// 16 bytes of elements, loaded and stored as one vector.
template <class T>
union Vector {
  static constexpr int kElements = 16 / sizeof(T);
  uint4 raw;
  T elements[kElements];
};

// Threads stride over the vectors, two at a time so that each has four 16-byte loads in flight: enough
// to keep HBM busy with a grid of a few blocks per SM. No __restrict__: in place, out is a.
template <class T, class Op>
__global__ void __launch_bounds__(512) reduceVectors(T* out, const T* a, const T* b,
                                                      std::size_t count, std::size_t head, std::size_t vectors) {
  const Op add;
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

template <class T, class Op>
__global__ void __launch_bounds__(512) reduceElements(T* out, const T* a, const T* b, std::size_t count) {
  const Op add;
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

std::size_t misalignment(const void* pointer) { return reduceMisalignment(pointer); }

template <class T, class Op>
void launch(void* out, const void* a, const void* b, std::size_t count, cudaStream_t stream) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  if (misalignment(out) == misalignment(a) && misalignment(out) == misalignment(b)) {
    constexpr std::size_t kPer = Vector<T>::kElements;
    const std::size_t head = misalignment(out) == 0 ? 0 : std::min(count, (kReduceVectorBytes - misalignment(out)) / sizeof(T));
    const std::size_t vectors = (count - head) / kPer;
    reduceVectors<T, Op><<<blocksFor(vectors > head ? vectors : head), kThreads, 0, stream>>>(o, x, y, count, head, vectors);
  } else {
    reduceElements<T, Op><<<blocksFor(count), kThreads, 0, stream>>>(o, x, y, count);
  }
  DDL_CUDA(cudaGetLastError());
}

}  // namespace

bool sumIsVectorised(const void* out, const void* a, const void* b, DataType) {
  return misalignment(out) == misalignment(a) && misalignment(out) == misalignment(b);
}

template <class T>
void launchOp(void* out, const void* a, const void* b, std::size_t count, ReduceOp op, cudaStream_t stream) {
  switch (op) {
    case ReduceOp::Sum: return launch<T, Sum>(out, a, b, count, stream);
    case ReduceOp::Product: return launch<T, Product>(out, a, b, count, stream);
    case ReduceOp::Min: return launch<T, Min>(out, a, b, count, stream);
    case ReduceOp::Max: return launch<T, Max>(out, a, b, count, stream);
  }
}

void launchReduce(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op, cudaStream_t stream) {
  if (count == 0) return;
  switch (type) {
    case DataType::Float32: return launchOp<float>(out, a, b, count, op, stream);
    case DataType::Float64: return launchOp<double>(out, a, b, count, op, stream);
    case DataType::BFloat16: return launchOp<__nv_bfloat16>(out, a, b, count, op, stream);
    case DataType::Float16: return launchOp<__half>(out, a, b, count, op, stream);
    case DataType::Int8: return launchOp<std::int8_t>(out, a, b, count, op, stream);
    case DataType::UInt8: return launchOp<std::uint8_t>(out, a, b, count, op, stream);
    case DataType::Int32: return launchOp<std::int32_t>(out, a, b, count, op, stream);
    case DataType::Int64: return launchOp<std::int64_t>(out, a, b, count, op, stream);
  }
}

template <class T>
__global__ void __launch_bounds__(512) divideElements(T* data, std::size_t count, int divisor) {
  using W = Widened<T>;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += threads)
    data[i] = W::back(static_cast<typename W::Type>(W::of(data[i]) / static_cast<typename W::Type>(divisor)));
}

template <class T>
void launchDivideAs(void* data, std::size_t count, int divisor, cudaStream_t stream) {
  divideElements<T><<<blocksFor(count), kThreads, 0, stream>>>(static_cast<T*>(data), count, divisor);
  DDL_CUDA(cudaGetLastError());
}

void launchDivide(void* data, std::size_t count, DataType type, int divisor, cudaStream_t stream) {
  if (count == 0) return;
  switch (type) {
    case DataType::Float32: return launchDivideAs<float>(data, count, divisor, stream);
    case DataType::Float64: return launchDivideAs<double>(data, count, divisor, stream);
    case DataType::BFloat16: return launchDivideAs<__nv_bfloat16>(data, count, divisor, stream);
    case DataType::Float16: return launchDivideAs<__half>(data, count, divisor, stream);
    case DataType::Int8: return launchDivideAs<std::int8_t>(data, count, divisor, stream);
    case DataType::UInt8: return launchDivideAs<std::uint8_t>(data, count, divisor, stream);
    case DataType::Int32: return launchDivideAs<std::int32_t>(data, count, divisor, stream);
    case DataType::Int64: return launchDivideAs<std::int64_t>(data, count, divisor, stream);
  }
}

namespace {

// cudaFuncGetAttributes loads a kernel where CUDA loads them lazily (the default since CUDA 12.2).
template <class Kernel>
void load(Kernel* kernel) {
  cudaFuncAttributes attributes;
  DDL_CUDA(cudaFuncGetAttributes(&attributes, kernel));
}

template <class T>
void loadKernelsOf() {
  load(reduceVectors<T, Sum>);
  load(reduceElements<T, Sum>);
  load(reduceVectors<T, Product>);
  load(reduceElements<T, Product>);
  load(reduceVectors<T, Min>);
  load(reduceElements<T, Min>);
  load(reduceVectors<T, Max>);
  load(reduceElements<T, Max>);
  load(divideElements<T>);
}

}  // namespace

void loadReduceKernels() {
  loadKernelsOf<float>();
  loadKernelsOf<double>();
  loadKernelsOf<__nv_bfloat16>();
  loadKernelsOf<__half>();
  loadKernelsOf<std::int8_t>();
  loadKernelsOf<std::uint8_t>();
  loadKernelsOf<std::int32_t>();
  loadKernelsOf<std::int64_t>();
}

}  // namespace ddl
