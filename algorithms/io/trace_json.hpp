#pragma once
// An IterationTimeline in the Chrome trace-event format ({"traceEvents": [...]}, complete events "ph": "X"
// with microsecond "ts" and "dur"), which Perfetto (ui.perfetto.dev), chrome://tracing and Horovod's
// timeline use: one process per rank of each group, whose id is the rank, a thread for its compute and one for
// its allreduces; each allreduce's arguments are its bucket, bytes, algorithm and channels.

#include <nlohmann/json_fwd.hpp>

#include "algorithms/training/iteration_timeline.hpp"

namespace ddl {

// A trace holding several groups (ddlrun train traces every algorithm of a scenario) numbers the processes of
// the k-th group from k * kGroupStride: the rank is still the process id's last digits.
inline constexpr int kGroupStride = 1000000;
nlohmann::json chromeTrace(const IterationTimeline& timeline);

// One rank's spans as JSON and back, for gathering them to the rank that writes the trace.
std::string spansToText(const std::vector<TimelineSpan>& spans);
std::vector<TimelineSpan> spansFromText(const std::string& text);

}  // namespace ddl
