#include "runtime/host_reduce.hpp"

namespace ddl {
namespace {

template <class T>
void add(T* __restrict into, const T* __restrict from, std::size_t count) {
#pragma GCC ivdep
  for (std::size_t i = 0; i < count; ++i) into[i] += from[i];
}

}  // namespace

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
    case DataType::Float16: {
      auto* a = static_cast<unsigned short*>(into);
      const auto* b = static_cast<const unsigned short*>(from);
      for (std::size_t i = 0; i < count; ++i) a[i] = floatToFloat16(float16ToFloat(a[i]) + float16ToFloat(b[i]));
      return;
    }
  }
}

}  // namespace ddl
