#include "algorithms/schedule/program.hpp"

#include <algorithm>
#include <map>

namespace ddl {

std::string_view toString(StepKind kind) {
  switch (kind) {
    case StepKind::Send: return "send";
    case StepKind::ReceiveReduce: return "receive-reduce";
    case StepKind::ReceiveCopy: return "receive-copy";
  }
  return "unknown";
}

Program::Program(Rank rank, Elements elements, std::vector<Step> steps, std::vector<StepIndex> dependencies)
    : rank_(rank), elements_(elements), steps_(std::move(steps)), dependencies_(std::move(dependencies)) {
  std::map<StreamKey, int> streamOf;
  std::vector<std::int32_t> streamLength;
  for (Step& step : steps_) {
    const StreamKey key{step.sends(), step.peer, step.channel};
    auto [it, inserted] = streamOf.try_emplace(key, static_cast<int>(streamKeys_.size()));
    if (inserted) {
      streamKeys_.push_back(key);
      streamLength.push_back(0);
    }
    step.stream = it->second;
    step.sequence = streamLength[static_cast<std::size_t>(it->second)]++;
  }
  streamBegin_.assign(streamKeys_.size() + 1, 0);
  for (std::size_t s = 0; s < streamKeys_.size(); ++s) streamBegin_[s + 1] = streamBegin_[s] + streamLength[s];
  streamStepList_.resize(steps_.size());
  for (StepIndex i = 0; i < size(); ++i) {
    const Step& step = steps_[static_cast<std::size_t>(i)];
    streamStepList_[static_cast<std::size_t>(streamBegin_[static_cast<std::size_t>(step.stream)] + step.sequence)] = i;
  }
  streamLookup_.assign(streamOf.begin(), streamOf.end());
}

int Program::findStream(const StreamKey& key) const {
  auto it = std::lower_bound(streamLookup_.begin(), streamLookup_.end(), key,
                             [](const auto& entry, const StreamKey& k) { return entry.first < k; });
  return it != streamLookup_.end() && it->first == key ? it->second : -1;
}

std::string Program::describe(StepIndex index) const {
  const Step& s = step(index);
  return "rank " + std::to_string(rank_) + " step " + std::to_string(index) + " (" + std::string(toString(s.kind)) +
         " " + toString(s.range) + (s.sends() ? " to rank " : " from rank ") + std::to_string(s.peer) +
         ", channel " + std::to_string(s.channel) + ", message #" + std::to_string(s.sequence) + ")";
}

bool operator==(const Program& a, const Program& b) {
  if (a.rank_ != b.rank_ || a.elements_ != b.elements_ || a.size() != b.size()) return false;
  for (StepIndex i = 0; i < a.size(); ++i) {
    const Step& x = a.step(i);
    const Step& y = b.step(i);
    if (x.kind != y.kind || x.peer != y.peer || x.range != y.range || x.channel != y.channel) return false;
    auto dx = a.dependenciesOf(i);
    auto dy = b.dependenciesOf(i);
    if (!std::equal(dx.begin(), dx.end(), dy.begin(), dy.end())) return false;
  }
  return true;
}

}  // namespace ddl
