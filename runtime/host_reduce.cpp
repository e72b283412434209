#include "runtime/host_reduce.hpp"

#include <cstdint>
#include <type_traits>

#include "runtime/narrow_floats.hpp"

namespace ddl {
namespace {

// The operators on one element type. Signed integers add and multiply as their unsigned twins, whose
// overflow wraps by definition, where signed overflow would be undefined behaviour.
template <class T, bool = std::is_integral_v<T>>
struct Arithmetic {
  using Type = T;
};
template <class T>
struct Arithmetic<T, true> {
  using Type = std::make_unsigned_t<T>;
};

template <class T>
struct Combine {
  using Wide = typename Arithmetic<T>::Type;
  static T sum(T a, T b) { return static_cast<T>(static_cast<Wide>(a) + static_cast<Wide>(b)); }
  static T product(T a, T b) { return static_cast<T>(static_cast<Wide>(a) * static_cast<Wide>(b)); }
  static T min(T a, T b) { return b < a ? b : a; }
  static T max(T a, T b) { return a < b ? b : a; }
};

// Two loops, not one with `into` possibly equal to `local`: __restrict lets the compiler vectorise, and
// promises the pointers do not alias.
template <class T, T (*combine)(T, T)>
void inPlace(T* __restrict into, const T* __restrict from, std::size_t count) {
#pragma GCC ivdep
  for (std::size_t i = 0; i < count; ++i) into[i] = combine(into[i], from[i]);
}

template <class T, T (*combine)(T, T)>
void outOfPlace(T* __restrict into, const T* __restrict local, const T* __restrict from, std::size_t count) {
#pragma GCC ivdep
  for (std::size_t i = 0; i < count; ++i) into[i] = combine(local[i], from[i]);
}

template <class T, T (*combine)(T, T)>
void apply(void* into, const void* local, const void* from, std::size_t count) {
  if (into == local) {
    inPlace<T, combine>(static_cast<T*>(into), static_cast<const T*>(from), count);
  } else {
    outOfPlace<T, combine>(static_cast<T*>(into), static_cast<const T*>(local), static_cast<const T*>(from), count);
  }
}

template <class T>
void reduceAs(void* into, const void* local, const void* from, std::size_t count, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return apply<T, Combine<T>::sum>(into, local, from, count);
    case ReduceOp::Product: return apply<T, Combine<T>::product>(into, local, from, count);
    case ReduceOp::Min: return apply<T, Combine<T>::min>(into, local, from, count);
    case ReduceOp::Max: return apply<T, Combine<T>::max>(into, local, from, count);
  }
}

// Narrow floats are combined in float and rounded once, element by element (no aliasing question arises).
template <float (*widen)(unsigned short), unsigned short (*narrow)(float)>
void reduceNarrow(void* into, const void* local, const void* from, std::size_t count, ReduceOp op) {
  auto* out = static_cast<unsigned short*>(into);
  const auto* a = static_cast<const unsigned short*>(local);
  const auto* b = static_cast<const unsigned short*>(from);
  for (std::size_t i = 0; i < count; ++i) {
    const float x = widen(a[i]);
    const float y = widen(b[i]);
    float result = x + y;
    if (op == ReduceOp::Product) result = x * y;
    if (op == ReduceOp::Min) result = Combine<float>::min(x, y);
    if (op == ReduceOp::Max) result = Combine<float>::max(x, y);
    out[i] = narrow(result);
  }
}

template <class T>
void divideAs(void* data, std::size_t count, int divisor) {
  auto* values = static_cast<T*>(data);
  for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(values[i] / static_cast<T>(divisor));
}

template <float (*widen)(unsigned short), unsigned short (*narrow)(float)>
void divideNarrow(void* data, std::size_t count, int divisor) {
  auto* values = static_cast<unsigned short*>(data);
  for (std::size_t i = 0; i < count; ++i) values[i] = narrow(widen(values[i]) / static_cast<float>(divisor));
}

}  // namespace

void divideElements(void* data, std::size_t count, DataType type, int divisor) {
  switch (type) {
    case DataType::Float32: return divideAs<float>(data, count, divisor);
    case DataType::Float64: return divideAs<double>(data, count, divisor);
    case DataType::BFloat16: return divideNarrow<bfloat16ToFloat, floatToBfloat16>(data, count, divisor);
    case DataType::Float16: return divideNarrow<float16ToFloat, floatToFloat16>(data, count, divisor);
    case DataType::Int8: return divideAs<std::int8_t>(data, count, divisor);
    case DataType::UInt8: return divideAs<std::uint8_t>(data, count, divisor);
    case DataType::Int32: return divideAs<std::int32_t>(data, count, divisor);
    case DataType::Int64: return divideAs<std::int64_t>(data, count, divisor);
  }
}

void reduceInto(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) {
  switch (type) {
    case DataType::Float32: return reduceAs<float>(into, local, from, count, op);
    case DataType::Float64: return reduceAs<double>(into, local, from, count, op);
    case DataType::BFloat16: return reduceNarrow<bfloat16ToFloat, floatToBfloat16>(into, local, from, count, op);
    case DataType::Float16: return reduceNarrow<float16ToFloat, floatToFloat16>(into, local, from, count, op);
    case DataType::Int8: return reduceAs<std::int8_t>(into, local, from, count, op);
    case DataType::UInt8: return reduceAs<std::uint8_t>(into, local, from, count, op);
    case DataType::Int32: return reduceAs<std::int32_t>(into, local, from, count, op);
    case DataType::Int64: return reduceAs<std::int64_t>(into, local, from, count, op);
  }
}

}  // namespace ddl
