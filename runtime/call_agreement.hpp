#pragma once
// Ranks that check they agree on a collective call before any data moves. What one rank says of its call:
// the operation, the element type, the count, the root, the reduction and which call of the communicator it
// is. Ranks that disagree on any of these would otherwise match each other's messages and reduce garbage in
// silence (a broadcast from two different roots leaves both ranks' later allreduces wrong; float16 on one
// rank and bfloat16 on another sum into nonsense; a max on one rank and a sum on another give each its own
// answer).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/data_type.hpp"
#include "runtime/reduce_op.hpp"
#include "runtime/transport.hpp"

namespace ddl {

// The channel agreements go on: above any schedule's, just below the tags the MPI watchdog keeps for its roll
// calls (SilenceWatchdog::kFirstReservedTag, 32000, which asserts that the two stay apart). A number here, not
// the watchdog's, so that what agrees needs no MPI header.
inline constexpr Channel kAgreementChannel = 31999;

enum class CallKind : std::int32_t { Allreduce, AllGather, Broadcast, ReduceScatter, AllToAll };

struct CallShape {
  CallKind kind = CallKind::Allreduce;
  std::int32_t type = 0;   // DataType
  std::int64_t count = 0;  // elements, as the caller gave them
  std::int32_t root = -1;       // a broadcast's; -1 for the others
  std::int32_t reduction = -1;  // a Reduction, for the calls that reduce; -1 for the others
  std::uint64_t call = 0;  // 1 for the communicator's first collective (barriers count too), and so on

  friend bool operator==(const CallShape&, const CallShape&) = default;
};

// "broadcast of 1024 float32 from rank 1 (the communicator's call 3)", "allreduce (max) of 8 int32 (...)".
std::string describeCall(const CallShape& shape);

// Waits for every one of `requests`, or throws naming `what`: the caller's rule for a silent peer (the
// library gives its transport up; ddlrun bench ends the job).
using WaitForAll = std::function<void(std::vector<RequestId> requests, const std::string& what)>;

// Every rank calls it with its own call, in the same order as its collectives: each sends its shape to rank
// 0, which compares them and answers each rank with the first that differs from its own. Two messages per
// rank and one round trip, over `channel`, which no schedule may use. Throws InvalidArgument on every rank,
// naming rank 0's call and the differing rank's, when any differs; nothing else has moved then.
void agreeOnCall(Transport& transport, Channel channel, const CallShape& mine, const WaitForAll& waitForAll);

}  // namespace ddl
