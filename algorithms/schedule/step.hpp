#pragma once
// One step of a rank's program: a message to or from a peer over a range of the buffer.

#include <cstdint>
#include <string>
#include <string_view>

#include "algorithms/schedule/range.hpp"

namespace ddl {

using StepIndex = std::int32_t;
using Channel = std::int16_t;

enum class StepKind : std::uint8_t {
  // Sends the range to the peer. Reads the range from when it is posted until the transfer ends.
  Send,
  // Receives the peer's range into staging, then adds it element-wise into the range. The transfer may
  // start before the step's dependencies complete; only the reduction, which reads and writes the range,
  // waits for them.
  ReceiveReduce,
  // Receives the peer's range straight into the range. Writes the range from when it is posted.
  ReceiveCopy,
};

std::string_view toString(StepKind kind);

struct Step {
  // A send and its matching receive name the same range: block b sits at the same offset on every rank.
  Range range;
  Rank peer = 0;
  // Derived by Program from the step list (never set by hand):
  // the stream this step belongs to (its direction, peer and channel), and its position in that stream,
  // which is also the message's sequence number between the two ranks on that channel.
  std::int32_t stream = 0;
  std::int32_t sequence = 0;
  // Slice of Program::dependencyList() holding the steps of other streams this step waits for.
  std::int32_t firstDependency = 0;
  std::int32_t dependencyCount = 0;
  StepKind kind = StepKind::Send;
  // Independent FIFO connections between the same two ranks, as NCCL's channels: the k-th send from a to b
  // on channel c matches the k-th receive at b from a on channel c.
  Channel channel = 0;

  bool sends() const { return kind == StepKind::Send; }
  bool reads() const { return kind != StepKind::ReceiveCopy; }
  bool writes() const { return kind != StepKind::Send; }
};

}  // namespace ddl
