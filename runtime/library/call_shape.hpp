#pragma once
// What one rank says of a collective call when the ranks check that they agree on it before any data moves:
// the operation, the element type, the count, the root, the reduction and which call of the communicator it
// is. Ranks that disagree on any of these would otherwise match each other's messages and reduce garbage in
// silence (a broadcast from two different roots leaves both ranks' later allreduces wrong; float16 on one
// rank and bfloat16 on another sum into nonsense; a max on one rank and a sum on another give each its own
// answer).

#include <cstdint>
#include <string>

#include "runtime/data_type.hpp"
#include "runtime/reduce_op.hpp"

namespace ddl {

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

}  // namespace ddl
