#include "runtime/call_agreement.hpp"

#include "common/invalid_argument.hpp"

namespace ddl {

std::string describeCall(const CallShape& shape) {
  // Every field may come from another rank: anything out of range is named as such, never indexed.
  static constexpr const char* kNames[] = {"allreduce", "allgather", "broadcast", "reduce-scatter", "all-to-all"};
  static constexpr const char* kReductions[] = {"sum", "prod", "min", "max", "avg"};
  const auto kind = static_cast<std::size_t>(shape.kind);
  const auto reduction = static_cast<std::size_t>(shape.reduction);
  std::string text = kind < std::size(kNames) ? kNames[kind] : "an unknown collective";
  if (shape.reduction >= 0) text += std::string(" (") + (reduction < std::size(kReductions) ? kReductions[reduction] : "?") + ")";
  text += " of " + std::to_string(shape.count) + " " + std::string(toString(static_cast<DataType>(shape.type)));
  if (shape.kind == CallKind::Broadcast) text += " from rank " + std::to_string(shape.root);
  return text + " (the communicator's call " + std::to_string(shape.call) + ")";
}

void agreeOnCall(Transport& transport, Channel channel, const CallShape& mine, const WaitForAll& waitForAll) {
  struct Verdict {
    std::int32_t differing = -1;  // -1: every rank agrees
    std::int32_t reserved = 0;
    CallShape first;   // rank 0's call
    CallShape theirs;  // the differing rank's
  } verdict;
  const Rank rank = transport.rank();
  const int size = transport.size();
  const std::string what = "checking that the ranks agree on " + describeCall(mine);
  if (rank == 0) {
    std::vector<CallShape> shapes(static_cast<std::size_t>(size));
    std::vector<RequestId> received;
    for (Rank r = 1; r < size; ++r)
      received.push_back(transport.postReceive(r, channel, &shapes[static_cast<std::size_t>(r)], sizeof(CallShape)));
    waitForAll(std::move(received), what);
    verdict.first = mine;
    for (Rank r = 1; r < size && verdict.differing < 0; ++r)
      if (!(shapes[static_cast<std::size_t>(r)] == mine)) {
        verdict.differing = r;
        verdict.theirs = shapes[static_cast<std::size_t>(r)];
      }
    std::vector<RequestId> sent;
    for (Rank r = 1; r < size; ++r) sent.push_back(transport.postSend(r, channel, &verdict, sizeof verdict));
    waitForAll(std::move(sent), what);
  } else {
    waitForAll({transport.postSend(0, channel, &mine, sizeof mine), transport.postReceive(0, channel, &verdict, sizeof verdict)},
               what);
  }
  if (verdict.differing >= 0)
    throw InvalidArgument("comm", "the ranks disagree on this collective, so none of them runs it: rank 0 calls " +
                                      describeCall(verdict.first) + ", rank " + std::to_string(verdict.differing) + " " +
                                      describeCall(verdict.theirs));
}

}  // namespace ddl
