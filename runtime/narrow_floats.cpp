#include "runtime/narrow_floats.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ddl {
namespace {

std::uint32_t bitsOf(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float floatOf(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

float bfloat16ToFloat(unsigned short value) { return floatOf(static_cast<std::uint32_t>(value) << 16); }

unsigned short floatToBfloat16(float value) {
  std::uint32_t bits = bitsOf(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((bits >> 16) | 0x40u);  // NaN stays NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<unsigned short>(bits >> 16);
}

float float16ToFloat(unsigned short value) {
  const std::uint32_t sign = static_cast<std::uint32_t>(value & 0x8000u) << 16;
  const std::uint32_t exponent = (value >> 10) & 0x1fu;
  const std::uint32_t mantissa = value & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return floatOf(sign | 0x7f800000u | (mantissa << 13));  // infinity or NaN
  return floatOf(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

unsigned short floatToFloat16(float value) {
  const std::uint32_t bits = bitsOf(value);
  const auto sign = static_cast<std::uint32_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<unsigned short>(sign | 0x7e00u);  // NaN
  if (magnitude >= 0x47800000u) return static_cast<unsigned short>(sign | 0x7c00u);  // 2^16 and beyond: infinity
  if (magnitude < 0x38800000u) {
    // Below 2^-14 the result is subnormal: its mantissa is the value in units of 2^-24, rounded to nearest
    // even (a result of 1024 is the smallest normal number, which is also its correct encoding).
    const float units = floatOf(magnitude) * 16777216.0f;  // exact: a power of two
    return static_cast<unsigned short>(sign | static_cast<std::uint32_t>(std::nearbyint(units)));
  }
  // Rebias the exponent (127 -> 15) and round the mantissa from 23 to 10 bits, to nearest even; a carry
  // out of the mantissa steps the exponent, up to infinity, which is what rounding asks for.
  std::uint32_t half = (magnitude - ((127u - 15u) << 23)) >> 13;
  const std::uint32_t dropped = magnitude & 0x1fffu;
  if (dropped > 0x1000u || (dropped == 0x1000u && (half & 1u))) ++half;
  return static_cast<unsigned short>(sign | half);
}

}  // namespace ddl
