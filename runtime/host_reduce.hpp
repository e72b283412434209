#pragma once
// Element-wise sums on host memory, written so the compiler vectorises them (no aliasing, unit stride).

#include <cstddef>

#include "runtime/data_type.hpp"
#include "runtime/narrow_floats.hpp"

namespace ddl {

// into[i] = local[i] + from[i] for i < count: in place where `local` is `into`, out of place otherwise.
// `from` overlaps neither, and `local` is `into` or overlaps it not at all.
void addInto(void* into, const void* local, const void* from, std::size_t count, DataType type);

}  // namespace ddl
