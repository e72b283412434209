#pragma once
// Element-wise reductions on host memory, written so the compiler vectorises them (no aliasing, unit stride).

#include <cstddef>

#include "runtime/data_type.hpp"
#include "runtime/reduce_op.hpp"

namespace ddl {

// into[i] = local[i] op from[i] for i < count: in place where `local` is `into`, out of place otherwise.
// `from` overlaps neither, and `local` is `into` or overlaps it not at all. The 16-bit floats combine in
// float and round once to nearest even; integers wrap as two's complement (computed unsigned, so that an
// overflowing sum is defined, as NCCL's and gloo's wrap).
void reduceInto(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op);

}  // namespace ddl

namespace ddl {

// data[i] /= divisor for i < count: an average's last step (a sum divided by the ranks, as NCCL's ncclAvg).
// Integers divide truncating toward zero; the 16-bit floats divide in float and round once.
void divideElements(void* data, std::size_t count, DataType type, int divisor);

}  // namespace ddl
