#include "algorithms/training/workload.hpp"

#include "algorithms/schedule/element_type.hpp"

namespace ddl {

int gradientElementBytes(std::string_view precision) {
  for (const ElementTypeInfo& info : kElementTypes)
    if (!info.precision.empty() && info.precision == precision) return info.bytes;
  return 0;
}

double TrainingWorkload::backwardSeconds() const {
  double seconds = 0;
  for (const GradientTensor& tensor : gradients) seconds += tensor.backwardSeconds;
  return seconds;
}

Elements TrainingWorkload::gradientElements() const {
  Elements elements = 0;
  for (const GradientTensor& tensor : gradients) elements += tensor.elements;
  return elements;
}

TrainingWorkload TrainingWorkload::scaled(double factor) const {
  TrainingWorkload result = *this;
  result.forwardSeconds *= factor;
  result.optimizerSeconds *= factor;
  for (GradientTensor& tensor : result.gradients) tensor.backwardSeconds *= factor;
  return result;
}

}  // namespace ddl
