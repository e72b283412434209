#include "runtime/host_reduce.hpp"

namespace ddl {
namespace {

// Two loops, not one with `into` possibly equal to `local`: __restrict lets the compiler vectorise, and
// promises the pointers do not alias.
template <class T>
void add(T* __restrict into, const T* __restrict from, std::size_t count) {
#pragma GCC ivdep
  for (std::size_t i = 0; i < count; ++i) into[i] += from[i];
}

template <class T>
void sum(T* __restrict into, const T* __restrict local, const T* __restrict from, std::size_t count) {
#pragma GCC ivdep
  for (std::size_t i = 0; i < count; ++i) into[i] = local[i] + from[i];
}

template <class T>
void addOrSum(void* into, const void* local, const void* from, std::size_t count) {
  if (into == local) {
    add(static_cast<T*>(into), static_cast<const T*>(from), count);
  } else {
    sum(static_cast<T*>(into), static_cast<const T*>(local), static_cast<const T*>(from), count);
  }
}

// Narrow floats are added in float and rounded once, element by element (no aliasing question arises).
template <float (*widen)(unsigned short), unsigned short (*narrow)(float)>
void addNarrow(void* into, const void* local, const void* from, std::size_t count) {
  auto* out = static_cast<unsigned short*>(into);
  const auto* a = static_cast<const unsigned short*>(local);
  const auto* b = static_cast<const unsigned short*>(from);
  for (std::size_t i = 0; i < count; ++i) out[i] = narrow(widen(a[i]) + widen(b[i]));
}

}  // namespace

void addInto(void* into, const void* local, const void* from, std::size_t count, DataType type) {
  switch (type) {
    case DataType::Float32: return addOrSum<float>(into, local, from, count);
    case DataType::Float64: return addOrSum<double>(into, local, from, count);
    case DataType::BFloat16: return addNarrow<bfloat16ToFloat, floatToBfloat16>(into, local, from, count);
    case DataType::Float16: return addNarrow<float16ToFloat, floatToFloat16>(into, local, from, count);
  }
}

}  // namespace ddl
