#include "algorithms/training/iteration_timeline.hpp"

#include <cstdio>

namespace ddl {

std::string computePhaseName(std::size_t phase, std::size_t buckets) {
  if (phase == 0) return "forward, backward to bucket 0";
  if (phase < buckets) return "backward to bucket " + std::to_string(phase);
  if (phase == buckets) return "rest of backward";
  return "optimizer";
}

std::string bucketAllreduceName(std::size_t bucket, double bytes) {
  char text[96];
  std::snprintf(text, sizeof text, "allreduce of bucket %zu (%.1f MB)", bucket, bytes / 1e6);
  return text;
}

}  // namespace ddl
