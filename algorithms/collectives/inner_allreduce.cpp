#include "algorithms/collectives/inner_allreduce.hpp"

#include "algorithms/collectives/registry.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

const AlgorithmDefinition& innerAllreduce(const AlgorithmOptions& options) {
  const std::string name = options.inner.value_or("ring");
  const AlgorithmDefinition* algorithm = nullptr;
  try {
    algorithm = &findAlgorithm(CollectiveKind::Allreduce, name);
  } catch (const InvalidArgument& error) {
    throw InvalidArgument("inner", error.what());
  }
  if (!algorithm->composable)
    throw InvalidArgument("inner", name + " needs options of its own and cannot run as the inner allreduce");
  return *algorithm;
}

AlgorithmOptions innerOptions(const AlgorithmOptions& options, int members) {
  const AlgorithmDefinition& inner = innerAllreduce(options);
  AlgorithmOptions forwarded;
  if (options.chunkBytes) {
    if (!(inner.options & kChunkBytes))
      throw InvalidArgument("chunk-bytes", "inner allreduce " + std::string(inner.name) + " takes no chunk-bytes");
    forwarded.chunkBytes = options.chunkBytes;
  }
  inner.validate(members, forwarded);
  return forwarded;
}

int innerTranslationPeriod(const AlgorithmOptions& options, int members, Elements elements, int elementBytes) {
  const AlgorithmDefinition& inner = innerAllreduce(options);
  if (!inner.translationPeriod) return 0;
  return inner.translationPeriod({CollectiveKind::Allreduce, members, elements, elementBytes}, innerOptions(options, members));
}

double innerClosedFormSeconds(const AlgorithmOptions& options, int members, Elements elements, int elementBytes,
                              const CostModel& levelModel) {
  const CollectiveSpec spec{CollectiveKind::Allreduce, members, elements, elementBytes};
  return innerAllreduce(options).closedFormSeconds(spec, innerOptions(options, members), levelModel);
}

}  // namespace ddl
