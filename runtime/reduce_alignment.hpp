#pragma once
// The width of the reduction kernels' vectors (cuda/reduce_kernels.cu): the bulk of out[i] = a[i] + b[i]
// moves in 16-byte loads and stores only where out, a and b sit equally far from a 16-byte boundary, and
// element by element otherwise. The program runner places each receive-reduce's staged copy at its
// destination's distance from that boundary, so that a bucket at any offset takes the vector path.

#include <cstddef>
#include <cstdint>

namespace ddl {

inline constexpr std::size_t kReduceVectorBytes = 16;

// How far `pointer` sits past the last 16-byte boundary.
inline std::size_t reduceMisalignment(const void* pointer) {
  return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(pointer) % kReduceVectorBytes);
}

}  // namespace ddl
