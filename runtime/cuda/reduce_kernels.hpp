#pragma once
// Element-wise sums on the GPU for the runtime's reductions: out[i] = a[i] + b[i], in place when out is a.
// float32, float64, bfloat16 and float16; the 16-bit types add in float and round to nearest even, as
// the host reference (host_reduce, narrow_floats) does, so both give the same bits. Any length and any
// element-aligned pointers: where out, a and b sit equally far from a 16-byte boundary the bulk moves in
// 16-byte vectors, with the ragged head and tail done element by element; otherwise element by element.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "runtime/data_type.hpp"

namespace ddl {

// Enqueues the sum on `stream` and returns at once; throws TransportError if the launch fails.
void launchSum(void* out, const void* a, const void* b, std::size_t count, DataType type, cudaStream_t stream);

// Whether launchSum would use 16-byte vectors for these pointers (for tests and benchmarks).
bool sumIsVectorised(const void* out, const void* a, const void* b, DataType type);

}  // namespace ddl
