#include "algorithms/training/iteration_timeline.hpp"

#include <algorithm>
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

TimelineSpan collectiveSpan(const std::string& group, Rank rank, std::string_view lane, std::string name, std::size_t bucket,
                            double bytes, const std::string& algorithm, const Program& program, double startSeconds,
                            double endSeconds) {
  Channel channels = 0;
  for (const Step& step : program.steps()) channels = std::max<Channel>(channels, step.channel + 1);
  return {group, rank, std::string(lane), std::move(name), startSeconds, endSeconds,
          {static_cast<int>(bucket), bytes, algorithm, static_cast<int>(channels)}};
}

TimelineSpan allreduceSpan(const std::string& group, Rank rank, std::size_t bucket, double bytes, const std::string& algorithm,
                           const Program& program, double startSeconds, double endSeconds) {
  return collectiveSpan(group, rank, "allreduce", bucketAllreduceName(bucket, bytes), bucket, bytes, algorithm, program,
                        startSeconds, endSeconds);
}

}  // namespace ddl
