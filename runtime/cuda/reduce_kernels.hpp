#pragma once
// Element-wise reductions on the GPU for the runtime's: out[i] = a[i] op b[i], in place when out is a, for
// every element type and operator of the host reference (host_reduce): the 16-bit floats combine in float
// and round to nearest even, integers wrap, so both give the same bits. Any length and any
// element-aligned pointers: where out, a and b sit equally far from a 16-byte boundary the bulk moves in
// 16-byte vectors, with the ragged head and tail done element by element; otherwise element by element.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "runtime/data_type.hpp"
#include "runtime/reduce_op.hpp"

namespace ddl {

// Enqueues the reduction on `stream` and returns at once; throws TransportError if the launch fails.
void launchReduce(void* out, const void* a, const void* b, std::size_t count, DataType type, ReduceOp op, cudaStream_t stream);

// Enqueues data[i] /= divisor (an average's last step, as NCCL's ncclAvg: integers divide truncating).
void launchDivide(void* data, std::size_t count, DataType type, int divisor, cudaStream_t stream);

// Loads every kernel above on the current device now. CUDA loads kernels lazily by default (since 12.2), at
// their first launch, and loading may wait for the device: mid-run, for an NCCL kernel that waits for a peer
// that waits for this rank. The GPU transports call it as they start.
void loadReduceKernels();

// Whether launchReduce would use 16-byte vectors for these pointers (for tests and benchmarks).
bool sumIsVectorised(const void* out, const void* a, const void* b, DataType type);

}  // namespace ddl
