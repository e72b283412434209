#include "runtime/data_type.hpp"

namespace ddl {

std::optional<DataType> parseDataType(std::string_view name) {
  for (const ElementTypeInfo& info : kElementTypes)
    if (info.name == name || info.ncclTests == name) return info.type;
  return std::nullopt;
}

}  // namespace ddl
