#pragma once
// One rank's program: its ordered steps, the dependencies between them, and the streams they form.

#include <compare>
#include <span>
#include <string>
#include <vector>

#include "algorithms/schedule/step.hpp"

namespace ddl {

// Steps that exchange messages with the same peer, in the same direction, on the same channel form a
// stream. Steps of one stream are posted in program order, each once the previous one has completed;
// steps of different streams may be in flight together unless a dependency orders them.
struct StreamKey {
  bool sending = false;
  Rank peer = 0;
  Channel channel = 0;
  friend auto operator<=>(const StreamKey&, const StreamKey&) = default;
};

class Program {
 public:
  Program() = default;
  // `steps[i]` waits for dependencies[steps[i].firstDependency ...+ dependencyCount), all earlier than i.
  // Stream and sequence fields of the steps are derived here.
  Program(Rank rank, Elements elements, std::vector<Step> steps, std::vector<StepIndex> dependencies);

  Rank rank() const { return rank_; }
  Elements elements() const { return elements_; }
  StepIndex size() const { return static_cast<StepIndex>(steps_.size()); }
  std::span<const Step> steps() const { return steps_; }
  const Step& step(StepIndex index) const { return steps_[static_cast<std::size_t>(index)]; }
  std::span<const StepIndex> dependenciesOf(StepIndex index) const {
    const Step& s = step(index);
    return std::span<const StepIndex>(dependencies_).subspan(static_cast<std::size_t>(s.firstDependency),
                                                              static_cast<std::size_t>(s.dependencyCount));
  }
  std::span<const StepIndex> dependencyList() const { return dependencies_; }

  int streamCount() const { return static_cast<int>(streamKeys_.size()); }
  const StreamKey& streamKey(int stream) const { return streamKeys_[static_cast<std::size_t>(stream)]; }
  // Inline, as previousInStream: executors call them for every step they complete.
  std::span<const StepIndex> streamSteps(int stream) const {
    const auto begin = static_cast<std::size_t>(streamBegin_[static_cast<std::size_t>(stream)]);
    const auto end = static_cast<std::size_t>(streamBegin_[static_cast<std::size_t>(stream) + 1]);
    return std::span<const StepIndex>(streamStepList_).subspan(begin, end - begin);
  }
  // The stream with this key, or -1 if the program has none.
  int findStream(const StreamKey& key) const;
  // The step posted before `index` in its stream, or -1 for the first step of a stream.
  StepIndex previousInStream(StepIndex index) const {
    const Step& s = step(index);
    return s.sequence == 0 ? -1 : streamStepList_[static_cast<std::size_t>(streamBegin_[static_cast<std::size_t>(s.stream)] + s.sequence - 1)];
  }

  // "rank 3 step 17 (receive-reduce [768, 1024) from rank 2, channel 0, message #5)"
  std::string describe(StepIndex index) const;

  friend bool operator==(const Program& a, const Program& b);

 private:
  Rank rank_ = 0;
  Elements elements_ = 0;
  std::vector<Step> steps_;
  std::vector<StepIndex> dependencies_;
  std::vector<StreamKey> streamKeys_;
  std::vector<std::int32_t> streamBegin_;  // streamSteps(s) = streamStepList_[streamBegin_[s] .. streamBegin_[s+1])
  std::vector<StepIndex> streamStepList_;
  std::vector<std::pair<StreamKey, int>> streamLookup_;  // sorted by key
};

}  // namespace ddl
