#pragma once
// The 16-bit floating-point formats the runtime reduces, converted to and from float on the host with
// round-to-nearest-even, bit for bit as CUDA's __float2bfloat16_rn and __float2half_rn do, so that a sum
// computed on the host and one computed by the GPU kernels agree exactly.

namespace ddl {

// bfloat16: the upper half of an IEEE float (8-bit exponent, 7-bit mantissa).
float bfloat16ToFloat(unsigned short value);
unsigned short floatToBfloat16(float value);

// float16: IEEE binary16 (5-bit exponent, 10-bit mantissa, subnormals below 2^-14).
float float16ToFloat(unsigned short value);
unsigned short floatToFloat16(float value);

}  // namespace ddl
