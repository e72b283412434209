#pragma once
// A communication library's own collectives (MPI_Allreduce, ncclAllReduce, ...) on a transport's buffers.
// A transport built on such a library offers them to every rank; `ddlrun bench --baseline` runs them on
// the same buffers as the schedules, for side-by-side figures.

#include <string>

#include "algorithms/schedule/collective.hpp"
#include "runtime/data_type.hpp"

namespace ddl {

class LibraryCollectives {
 public:
  virtual ~LibraryCollectives() = default;
  virtual std::string name() const = 0;  // for the table: "MPI", "NCCL"
  // Whether the library has this collective for `count` elements of `type` on this job's ranks.
  virtual bool available(CollectiveKind kind, Elements count, DataType type) const = 0;
  // Runs it in place on `buffer` (in the transport's memory), leaving the result where the schedules
  // leave theirs, and returns when it has finished.
  virtual void run(CollectiveKind kind, void* buffer, Elements count, DataType type) = 0;
};

}  // namespace ddl
