#include "runtime/data_type.hpp"

namespace ddl {

std::size_t sizeOf(DataType type) {
  switch (type) {
    case DataType::Float32: return 4;
    case DataType::Float64: return 8;
    case DataType::BFloat16: return 2;
    case DataType::Float16: return 2;
  }
  return 0;
}

std::string_view toString(DataType type) {
  switch (type) {
    case DataType::Float32: return "float32";
    case DataType::Float64: return "float64";
    case DataType::BFloat16: return "bfloat16";
    case DataType::Float16: return "float16";
  }
  return "unknown";
}

std::string_view ncclTestsName(DataType type) {
  switch (type) {
    case DataType::Float32: return "float";
    case DataType::Float64: return "double";
    case DataType::BFloat16: return "bfloat16";
    case DataType::Float16: return "half";
  }
  return "unknown";
}

std::optional<DataType> parseDataType(std::string_view name) {
  for (auto type : {DataType::Float32, DataType::Float64, DataType::BFloat16, DataType::Float16})
    if (toString(type) == name || ncclTestsName(type) == name) return type;
  return std::nullopt;
}

}  // namespace ddl
