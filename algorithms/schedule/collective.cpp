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

double busBandwidthFactor(CollectiveKind kind, int ranks) {
  const double share = ranks > 1 ? static_cast<double>(ranks - 1) / ranks : 0;
  return kind == CollectiveKind::Allreduce ? 2 * share : share;
}

std::optional<CollectiveKind> parseCollectiveKind(std::string_view name) {
  for (auto kind : {CollectiveKind::Allreduce, CollectiveKind::ReduceScatter, CollectiveKind::AllGather})
    if (toString(kind) == name) return kind;
  return std::nullopt;
}

}  // namespace ddl
