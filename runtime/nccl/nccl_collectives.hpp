#pragma once
// NCCL's own collectives as the `ddlrun bench --baseline nccl` figures: ncclAllReduce, ncclReduceScatter
// and ncclAllGather, in place on the NCCL transport's buffers and stream. NCCL's reduce-scatter and
// all-gather take equal blocks, so they are available where the element count divides by the ranks
// (then the balanced blocks of the schedules are the same blocks).

#include "runtime/library_collectives.hpp"
#include "runtime/nccl/nccl_transport.hpp"

namespace ddl {

class NcclCollectives final : public LibraryCollectives {
 public:
  explicit NcclCollectives(NcclTransport& transport) : transport_(transport) {}
  std::string name() const override { return "NCCL"; }
  bool available(CollectiveKind kind, Elements count, DataType type) const override;
  void run(CollectiveKind kind, void* buffer, Elements count, DataType type) override;

 private:
  NcclTransport& transport_;
};

}  // namespace ddl
