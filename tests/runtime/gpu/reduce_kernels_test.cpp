// The CUDA reduction kernels give the host reference's bits exactly, for every type and operator, in
// place and out of place, for lengths around every vector boundary, with pointers both equally and unequally misaligned
// (the 16-byte vector path and the element path).

#include <cuda_runtime_api.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "runtime/cuda/cuda_error.hpp"
#include "runtime/cuda/reduce_kernels.hpp"
#include "runtime/host_reduce.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "tests/runtime/gpu/requires_gpu.hpp"

namespace ddl {
namespace {

struct CudaFree {
  void operator()(char* memory) const { cudaFree(memory); }
};
using DeviceBuffer = std::unique_ptr<char, CudaFree>;

DeviceBuffer deviceBuffer(std::size_t bytes) {
  void* buffer = nullptr;
  DDL_CUDA(cudaMalloc(&buffer, bytes));
  return DeviceBuffer(static_cast<char*>(buffer));
}

class ReduceKernels : public testing::RequiresGpu {
 protected:
  // Reduces count elements at the given element offsets into three buffers, on the GPU and on the host,
  // and returns how many result elements differ bit for bit.
  std::int64_t mismatches(DataType type, ReduceOp op, std::size_t count, std::size_t outOffset, std::size_t aOffset, std::size_t bOffset,
                          bool inPlace) {
    const std::size_t size = sizeOf(type);
    const std::size_t capacity = (count + 16) * size;
    std::vector<char> a(capacity), b(capacity);
    std::mt19937 random(static_cast<unsigned>(count * 131 + outOffset * 7 + aOffset));
    std::uniform_real_distribution<double> value(-100, 100);
    for (std::size_t i = 0; i < count + 16; ++i) {
      writeValue(a.data(), static_cast<Elements>(i), value(random), type);
      writeValue(b.data(), static_cast<Elements>(i), value(random), type);
    }
    const DeviceBuffer bufferA = deviceBuffer(capacity), bufferB = deviceBuffer(capacity), bufferOut = deviceBuffer(capacity);
    char* deviceA = bufferA.get();
    char* deviceB = bufferB.get();
    char* deviceOut = inPlace ? deviceA : bufferOut.get();
    DDL_CUDA(cudaMemcpy(deviceA, a.data(), capacity, cudaMemcpyHostToDevice));
    DDL_CUDA(cudaMemcpy(deviceB, b.data(), capacity, cudaMemcpyHostToDevice));
    char* out = deviceOut + (inPlace ? aOffset : outOffset) * size;
    launchReduce(out, deviceA + aOffset * size, deviceB + bOffset * size, count, type, op, nullptr);
    DDL_CUDA(cudaDeviceSynchronize());
    std::vector<char> got(count * size + 1), expected(a.begin() + static_cast<std::ptrdiff_t>(aOffset * size),
                                                      a.begin() + static_cast<std::ptrdiff_t>((aOffset + count) * size));
    reduceInto(expected.data(), expected.data(), b.data() + bOffset * size, count, type, op);
    DDL_CUDA(cudaMemcpy(got.data(), out, count * size, cudaMemcpyDeviceToHost));
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < count * size; i += size)
      differ += std::memcmp(got.data() + i, expected.data() + i, size) != 0;
    return differ;
  }
};

TEST_F(ReduceKernels, MatchTheHostReferenceBitForBitAtEveryLengthAndAlignment) {
  for (const ElementTypeInfo& info : kElementTypes)
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Product, ReduceOp::Min, ReduceOp::Max}) {
    const DataType type = info.type;
    const std::size_t perVector = 16 / sizeOf(type);
    for (bool inPlace : {true, false})
      for (std::size_t count : {std::size_t{0}, std::size_t{1}, perVector - 1, perVector, perVector + 1, 2 * perVector + 1,
                                std::size_t{1000}, std::size_t{(1 << 20) + 5}})
        for (std::size_t aOffset : {std::size_t{0}, std::size_t{1}, perVector - 1})
          for (std::size_t bOffset : {aOffset, (aOffset + 1) % perVector}) {  // equally, then unequally misaligned
            const std::size_t outOffset = inPlace ? aOffset : bOffset;
            EXPECT_EQ(mismatches(type, op, count, outOffset, aOffset, bOffset, inPlace), 0)
                << toString(type) << " " << toString(op) << (inPlace ? " in place" : " out of place") << ", " << count << " elements at offsets "
                << outOffset << "/" << aOffset << "/" << bOffset;
          }
    }
}

TEST_F(ReduceKernels, DivideAsTheHostDividesAnAverage) {
  for (const ElementTypeInfo& info : kElementTypes) {
    const DataType type = info.type;
    const std::size_t count = 1001, size = sizeOf(type);
    std::vector<char> host(count * size), expected(count * size), got(count * size);
    for (std::size_t i = 0; i < count; ++i) writeValue(host.data(), static_cast<Elements>(i), static_cast<double>(i % 97) - 48, type);
    expected = host;
    divideElements(expected.data(), count, type, 3);
    const DeviceBuffer buffer = deviceBuffer(count * size);
    DDL_CUDA(cudaMemcpy(buffer.get(), host.data(), count * size, cudaMemcpyHostToDevice));
    launchDivide(buffer.get(), count, type, 3, nullptr);
    DDL_CUDA(cudaMemcpy(got.data(), buffer.get(), count * size, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, expected) << toString(type);
  }
}

TEST_F(ReduceKernels, UseVectorsExactlyWhenThePointersShareTheirAlignment) {
  const DeviceBuffer buffer = deviceBuffer(256);
  char* base = buffer.get();
  EXPECT_TRUE(sumIsVectorised(base + 16, base + 32, base + 64, DataType::Float32));
  EXPECT_TRUE(sumIsVectorised(base + 4, base + 36, base + 68, DataType::Float32));
  EXPECT_FALSE(sumIsVectorised(base + 4, base + 32, base + 64, DataType::Float32));
}

}  // namespace
}  // namespace ddl
