#pragma once
// The element types the runtime reduces.

#include <cstddef>
#include <optional>
#include <string_view>

namespace ddl {

enum class DataType { Float32, Float64, BFloat16, Float16 };

std::size_t sizeOf(DataType type);
std::string_view toString(DataType type);  // "float32", "float64", "bfloat16", "float16": in results files
// nccl-tests' names, in ddlrun bench's table and for -d: "float", "double", "bfloat16", "half".
std::string_view ncclTestsName(DataType type);
// Either name.
std::optional<DataType> parseDataType(std::string_view name);

}  // namespace ddl
