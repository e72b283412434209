#pragma once
// An IterationTimeline in the Chrome trace-event format ({"traceEvents": [...]}, complete events "ph": "X"
// with microsecond "ts" and "dur"), which Perfetto (ui.perfetto.dev), chrome://tracing and Horovod's
// timeline use: one process per rank of each group, a thread for its compute and one for its allreduces.

#include <nlohmann/json_fwd.hpp>

#include "algorithms/training/iteration_timeline.hpp"

namespace ddl {

nlohmann::json chromeTrace(const IterationTimeline& timeline);

// One rank's spans as JSON and back, for gathering them to the rank that writes the trace.
std::string spansToText(const std::vector<TimelineSpan>& spans);
std::vector<TimelineSpan> spansFromText(const std::string& text);

}  // namespace ddl
