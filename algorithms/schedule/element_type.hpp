#pragma once
// The element types ddlscale moves and reduces, in one table: each type's size and its names in the
// three places a type is named (results files, nccl-tests' -d and table, a scenario's "gradients"). The
// integer types are what frameworks reduce beside gradients (DDP's find_unused_parameters counts used
// parameters in int32; a bool tensor travels as uint8), as NCCL's ncclInt8 .. ncclInt64 are.

#include <optional>
#include <string_view>

namespace ddl {

enum class ElementType { Float32, Float64, BFloat16, Float16, Int8, UInt8, Int32, Int64 };

struct ElementTypeInfo {
  ElementType type;
  int bytes;
  std::string_view name;       // in results files: "float32"
  std::string_view ncclTests;  // nccl-tests' -d and table: "float"
  std::string_view precision;  // a scenario's "gradients" ("fp32"); empty where gradients never come in it
};

inline constexpr ElementTypeInfo kElementTypes[] = {
    {ElementType::Float32, 4, "float32", "float", "fp32"},
    {ElementType::Float64, 8, "float64", "double", ""},
    {ElementType::BFloat16, 2, "bfloat16", "bfloat16", "bf16"},
    {ElementType::Float16, 2, "float16", "half", "fp16"},
    {ElementType::Int8, 1, "int8", "int8", ""},
    {ElementType::UInt8, 1, "uint8", "uint8", ""},
    {ElementType::Int32, 4, "int32", "int32", ""},
    {ElementType::Int64, 8, "int64", "int64", ""},
};

// Whether sums of the type round (the four float types) or wrap (the integers, two's complement).
inline constexpr bool isFloatingPoint(ElementType type) {
  return type == ElementType::Float32 || type == ElementType::Float64 || type == ElementType::BFloat16 ||
         type == ElementType::Float16;
}

const ElementTypeInfo& infoOf(ElementType type);
// The type any of its names names: results', nccl-tests' or the precision's.
std::optional<ElementType> elementTypeNamed(std::string_view name);

}  // namespace ddl
