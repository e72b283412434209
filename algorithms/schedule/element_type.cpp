#include "algorithms/schedule/element_type.hpp"

namespace ddl {

const ElementTypeInfo& infoOf(ElementType type) {
  for (const ElementTypeInfo& info : kElementTypes)
    if (info.type == type) return info;
  return kElementTypes[0];  // unreachable: every enumerator has its row
}

std::optional<ElementType> elementTypeNamed(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (const ElementTypeInfo& info : kElementTypes)
    if (info.name == name || info.ncclTests == name || info.precision == name) return info.type;
  return std::nullopt;
}

}  // namespace ddl
