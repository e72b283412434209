#include "algorithms/training/workload.hpp"

namespace ddl {

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

}  // namespace ddl
