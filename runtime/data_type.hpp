#pragma once
// The element types the runtime reduces: the table of algorithms/schedule/element_type.hpp, by the names
// the runtime uses.

#include <cstddef>
#include <optional>
#include <string_view>

#include "algorithms/schedule/element_type.hpp"

namespace ddl {

using DataType = ElementType;

inline std::size_t sizeOf(DataType type) { return static_cast<std::size_t>(infoOf(type).bytes); }
// "float32", "float64", "bfloat16", "float16": in results files.
inline std::string_view toString(DataType type) { return infoOf(type).name; }
// nccl-tests' names, in ddlrun bench's table and for -d: "float", "double", "bfloat16", "half".
inline std::string_view ncclTestsName(DataType type) { return infoOf(type).ncclTests; }
// Either name.
std::optional<DataType> parseDataType(std::string_view name);

}  // namespace ddl
