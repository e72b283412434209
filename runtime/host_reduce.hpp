#pragma once
// Element-wise sums on host memory, written so the compiler vectorises them (no aliasing, unit stride).

#include <cstddef>

#include "runtime/data_type.hpp"
#include "runtime/narrow_floats.hpp"

namespace ddl {

// into[i] += from[i] for i < count; the two ranges must not overlap.
void addInto(void* into, const void* from, std::size_t count, DataType type);

}  // namespace ddl
