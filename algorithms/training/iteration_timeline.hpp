#pragma once
// One training iteration as each rank lived it: when it computed and when it allreduced each bucket, in
// seconds from the iteration's start. The simulator records it as predicted and the runtime as measured,
// so that the two open side by side in a trace viewer (algorithms/io/trace_json.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/schedule/program.hpp"
#include "common/rank.hpp"

namespace ddl {

// What a bucket's allreduce span carries besides its name: a trace viewer shows it as the span's arguments.
struct AllreduceDetail {
  int bucket = -1;  // -1: a compute span, which has none
  double bytes = 0;
  std::string algorithm;  // the configuration that ran it ("ddl 4x16x4")
  int channels = 0;       // the channels its schedule uses on this rank
};

struct TimelineSpan {
  std::string group;  // what the rank belongs to in the viewer: the point ("ddl 4x16x4 at 256 GPUs")
  Rank rank = 0;
  std::string lane;   // "compute", or the collective's kind: "allreduce", "reduce-scatter", "all-gather"
  std::string name;   // "backward to bucket 2", "allreduce of bucket 2 (25.2 MB)"
  double startSeconds = 0;
  double endSeconds = 0;
  AllreduceDetail detail;
};

struct IterationTimeline {
  std::string title;  // what the trace is of: the scenario, predicted or measured
  std::vector<TimelineSpan> spans;
};

// The names of an iteration's compute phases, as IterationPlan::computePhases cuts it, and then the optimizer.
std::string computePhaseName(std::size_t phase, std::size_t buckets);
std::string bucketAllreduceName(std::size_t bucket, double bytes);
// A bucket's allreduce on `rank`, named by bucketAllreduceName, with its detail; `program` is what ran it.
TimelineSpan allreduceSpan(const std::string& group, Rank rank, std::size_t bucket, double bytes, const std::string& algorithm,
                           const Program& program, double startSeconds, double endSeconds);
// Any collective of a bucket (a unit, under zero3), in the lane of its kind ("reduce-scatter"), named `name`.
TimelineSpan collectiveSpan(const std::string& group, Rank rank, std::string_view lane, std::string name, std::size_t bucket,
                            double bytes, const std::string& algorithm, const Program& program, double startSeconds,
                            double endSeconds);

}  // namespace ddl
