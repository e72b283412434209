#include "runtime/host_reduce.hpp"

#include <cstdint>
#include <cstring>

namespace ddl {
namespace {

template <class T>
void add(T* __restrict into, const T* __restrict from, std::size_t count) {
#pragma GCC ivdep
  for (std::size_t i = 0; i < count; ++i) into[i] += from[i];
}

}  // namespace

float bfloat16ToFloat(unsigned short value) {
  const std::uint32_t bits = static_cast<std::uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

unsigned short floatToBfloat16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((bits >> 16) | 0x40u);  // NaN stays NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<unsigned short>(bits >> 16);
}

void addInto(void* into, const void* from, std::size_t count, DataType type) {
  switch (type) {
    case DataType::Float32:
      add(static_cast<float*>(into), static_cast<const float*>(from), count);
      return;
    case DataType::Float64:
      add(static_cast<double*>(into), static_cast<const double*>(from), count);
      return;
    case DataType::BFloat16: {
      auto* a = static_cast<unsigned short*>(into);
      const auto* b = static_cast<const unsigned short*>(from);
      for (std::size_t i = 0; i < count; ++i) a[i] = floatToBfloat16(bfloat16ToFloat(a[i]) + bfloat16ToFloat(b[i]));
      return;
    }
  }
}

}  // namespace ddl
