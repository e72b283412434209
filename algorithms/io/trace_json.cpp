#include "algorithms/io/trace_json.hpp"

#include <map>
#include <utility>

#include <nlohmann/json.hpp>

namespace ddl {

nlohmann::json chromeTrace(const IterationTimeline& timeline) {
  // A process per (group, rank), whose id is the rank (plus kGroupStride for each group before it, where a trace
  // holds several); thread 0 computes, thread 1 communicates (allreduces, reduce-scatters, all-gathers).
  std::map<std::string, int> groups;
  std::map<std::pair<std::string, Rank>, int> processes;
  nlohmann::json events = nlohmann::json::array();
  for (const TimelineSpan& span : timeline.spans) {
    const int group = groups.try_emplace(span.group, static_cast<int>(groups.size())).first->second;
    const auto [entry, added] = processes.try_emplace({span.group, span.rank}, group * kGroupStride + span.rank);
    const int pid = entry->second;
    if (added) {
      events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid},
                        {"args", {{"name", span.group + ": rank " + std::to_string(span.rank)}}}});
      events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", "compute"}}}});
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 1}, {"args", {{"name", "communication"}}}});
    }
    nlohmann::json event = {{"ph", "X"}, {"name", span.name}, {"cat", span.lane}, {"pid", pid},
                            {"tid", span.lane == "compute" ? 0 : 1}, {"ts", span.startSeconds * 1e6},
                            {"dur", (span.endSeconds - span.startSeconds) * 1e6}};
    if (span.detail.bucket >= 0)
      event["args"] = {{"bucket", span.detail.bucket}, {"bytes", span.detail.bytes}, {"algorithm", span.detail.algorithm},
                       {"channels", span.detail.channels}};
    events.push_back(event);
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", {{"title", timeline.title}}}};
}

std::string spansToText(const std::vector<TimelineSpan>& spans) {
  nlohmann::json list = nlohmann::json::array();
  for (const TimelineSpan& span : spans)
    list.push_back({span.group, span.rank, span.lane, span.name, span.startSeconds, span.endSeconds, span.detail.bucket,
                    span.detail.bytes, span.detail.algorithm, span.detail.channels});
  return list.dump();
}

std::vector<TimelineSpan> spansFromText(const std::string& text) {
  std::vector<TimelineSpan> spans;
  for (const auto& item : nlohmann::json::parse(text))
    spans.push_back({item[0].get<std::string>(), item[1].get<Rank>(), item[2].get<std::string>(), item[3].get<std::string>(),
                     item[4].get<double>(), item[5].get<double>(),
                     {item[6].get<int>(), item[7].get<double>(), item[8].get<std::string>(), item[9].get<int>()}});
  return spans;
}

}  // namespace ddl
