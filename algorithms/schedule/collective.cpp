#include "algorithms/schedule/collective.hpp"

namespace ddl {

std::string_view toString(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::Allreduce: return "allreduce";
    case CollectiveKind::ReduceScatter: return "reduce-scatter";
    case CollectiveKind::AllGather: return "all-gather";
  }
  return "unknown";
}

std::optional<CollectiveKind> parseCollectiveKind(std::string_view name) {
  for (auto kind : {CollectiveKind::Allreduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather})
    if (toString(kind) == name) return kind;
  return std::nullopt;
}

}  // namespace ddl
