#include "runtime/library/call_shape.hpp"

namespace ddl {

std::string describeCall(const CallShape& shape) {
  static constexpr const char* kNames[] = {"allreduce", "allgather", "broadcast"};
  const auto kind = static_cast<std::size_t>(shape.kind);
  const auto type = static_cast<DataType>(shape.type);
  std::string text = kind < 3 ? kNames[kind] : "an unknown collective";
  text += " of " + std::to_string(shape.count) + " " + std::string(toString(type));
  if (shape.kind == CallKind::Broadcast) text += " from rank " + std::to_string(shape.root);
  return text + " (the communicator's call " + std::to_string(shape.call) + ")";
}

}  // namespace ddl
