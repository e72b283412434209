#include "runtime/nccl/nccl_collectives.hpp"

#include "runtime/cuda/cuda_error.hpp"

namespace ddl {
namespace {

ncclDataType_t ncclType(DataType type) {
  switch (type) {
    case DataType::Float32: return ncclFloat32;
    case DataType::Float64: return ncclFloat64;
    case DataType::BFloat16: return ncclBfloat16;
    case DataType::Float16: return ncclFloat16;
    case DataType::Int8: return ncclInt8;
    case DataType::UInt8: return ncclUint8;
    case DataType::Int32: return ncclInt32;
    case DataType::Int64: return ncclInt64;
  }
  return ncclFloat32;
}

}  // namespace

bool NcclCollectives::available(CollectiveKind kind, Elements count, DataType) const {
  return kind == CollectiveKind::Allreduce || count % transport_.size() == 0;
}

void NcclCollectives::run(CollectiveKind kind, void* buffer, Elements count, DataType type) {
  const auto elements = static_cast<std::size_t>(count);
  const std::size_t block = elements / static_cast<std::size_t>(transport_.size());
  char* mine = static_cast<char*>(buffer) + static_cast<std::size_t>(transport_.rank()) * block * sizeOf(type);
  ncclComm_t comm = transport_.communicator();
  cudaStream_t stream = transport_.stream();
  switch (kind) {
    case CollectiveKind::Allreduce:
      DDL_NCCL(ncclAllReduce(buffer, buffer, elements, ncclType(type), ncclSum, comm, stream));
      break;
    case CollectiveKind::ReduceScatter:
      DDL_NCCL(ncclReduceScatter(buffer, mine, block, ncclType(type), ncclSum, comm, stream));
      break;
    case CollectiveKind::AllGather:
      DDL_NCCL(ncclAllGather(mine, buffer, block, ncclType(type), comm, stream));
      break;
  }
  const auto wait = transport_.bootstrap().waitingIn("the NCCL baseline's collective", true);
  transport_.waitForStream(stream);
}

}  // namespace ddl
