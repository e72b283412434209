#include "runtime/library/call_shape.hpp"

namespace ddl {

std::string describeCall(const CallShape& shape) {
  // Every field may come from another rank: anything out of range is named as such, never indexed.
  static constexpr const char* kNames[] = {"allreduce", "allgather", "broadcast", "reduce-scatter", "all-to-all"};
  static constexpr const char* kReductions[] = {"sum", "prod", "min", "max", "avg"};
  const auto kind = static_cast<std::size_t>(shape.kind);
  const auto reduction = static_cast<std::size_t>(shape.reduction);
  std::string text = kind < std::size(kNames) ? kNames[kind] : "an unknown collective";
  if (shape.reduction >= 0) text += std::string(" (") + (reduction < std::size(kReductions) ? kReductions[reduction] : "?") + ")";
  text += " of " + std::to_string(shape.count) + " " + std::string(toString(static_cast<DataType>(shape.type)));
  if (shape.kind == CallKind::Broadcast) text += " from rank " + std::to_string(shape.root);
  return text + " (the communicator's call " + std::to_string(shape.call) + ")";
}

}  // namespace ddl
