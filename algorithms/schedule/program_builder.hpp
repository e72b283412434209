#pragma once
// Builds one rank's program in the order an algorithm describes it, deriving every dependency from the
// ranges the steps touch. Algorithms therefore say only what moves where; what may overlap follows.

#include <cstdint>
#include <vector>

#include "algorithms/schedule/hazard_tracker.hpp"
#include "algorithms/schedule/program.hpp"

namespace ddl {

// A program longer than this is refused as it is built, before it exhausts the machine: 2^24 steps take
// about a gigabyte (a ring allreduce of 8 million ranks, or a tree pipelined in one-byte chunks).
constexpr std::int64_t kMaxStepsPerProgram = std::int64_t{1} << 24;

class ProgramBuilder {
 public:
  ProgramBuilder(Rank self, Elements elements) : self_(self), elements_(elements), hazards_(elements) {}

  Rank self() const { return self_; }
  Elements elements() const { return elements_; }

  StepIndex send(Rank peer, Range range, Channel channel = 0) { return add(StepKind::Send, peer, range, channel); }
  StepIndex receiveReduce(Rank peer, Range range, Channel channel = 0) {
    return add(StepKind::ReceiveReduce, peer, range, channel);
  }
  StepIndex receiveCopy(Rank peer, Range range, Channel channel = 0) {
    return add(StepKind::ReceiveCopy, peer, range, channel);
  }

  Program finish() &&;

 private:
  StepIndex add(StepKind kind, Rank peer, Range range, Channel channel);

  Rank self_;
  Elements elements_;
  HazardTracker hazards_;
  std::vector<Step> steps_;
  std::vector<StepIndex> dependencies_;
};

}  // namespace ddl
