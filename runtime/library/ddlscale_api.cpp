// The C API of include/ddlscale/ddlscale.h over ddl::Communicator: argument checks, the translation of
// types and exceptions into ddl_result, and the thread's last error. No exception leaves this file.

#include "ddlscale/ddlscale.h"

#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "common/byte_sizes.hpp"
#include "common/invalid_argument.hpp"
#include "runtime/library/communicator.hpp"
#include "runtime/library/handle_table.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "runtime/tcp/tcp_mesh.hpp"
#include "runtime/tcp/tcp_transport.hpp"

#ifdef DDLSCALE_WITH_CUDA
#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/nccl/nccl_mpi_bootstrap.hpp"
#include "runtime/nccl/nccl_transport.hpp"
#endif

struct ddl_comm_s {
  std::unique_ptr<ddl::Communicator> communicator;
  bool deviceMemory = false;  // made by ddl_comm_init_nccl: its buffers are GPU memory
};

struct ddl_request_s {
  std::shared_ptr<ddl::CollectiveOutcome> completion;
};

namespace {

thread_local std::string lastError;

// The live communicators and requests, by handle (handle_table.hpp says why handles are not pointers).
ddl::HandleTable<ddl_comm_s>& communicators() {
  static ddl::HandleTable<ddl_comm_s> table;
  return table;
}
ddl::HandleTable<ddl_request_s>& requests() {
  static ddl::HandleTable<ddl_request_s> table;
  return table;
}
std::uintptr_t numberOf(const void* handle) { return reinterpret_cast<std::uintptr_t>(handle); }
ddl_comm commHandle(std::unique_ptr<ddl_comm_s> comm) {
  return reinterpret_cast<ddl_comm>(communicators().add(std::move(comm)));
}

// The communicator a handle names: InvalidArgument for a null one, or one destroyed or never made.
ddl_comm_s& liveComm(ddl_comm comm) {
  if (!comm) throw ddl::InvalidArgument("comm", "a null communicator");
  ddl_comm_s* live = communicators().find(numberOf(comm));
  if (!live) throw ddl::InvalidArgument("comm", "not a live communicator (destroyed, or never made by ddl_comm_init_*)");
  return *live;
}

// Valid, but not on this build or this machine: DDL_UNSUPPORTED.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ddl_result fail(ddl_result result, std::string message) {
  lastError = std::move(message);
  return result;
}

// Runs `call`, turning what it throws into the result and this thread's last error.
template <class Call>
ddl_result guarded(const char* function, Call&& call) {
  try {
    call();
    return DDL_SUCCESS;
  } catch (const ddl::InvalidArgument& error) {
    return fail(DDL_INVALID_ARGUMENT, std::string(function) + ": " + error.what());
  } catch (const Unsupported& error) {
    return fail(DDL_UNSUPPORTED, std::string(function) + ": " + error.what());
  } catch (const ddl::TransportAbandoned& error) {
    return fail(DDL_ABORTED, std::string(function) + ": " + error.what());
  } catch (const std::bad_alloc&) {
    return fail(DDL_INTERNAL_ERROR, std::string(function) + ": out of memory");
  } catch (const std::exception& error) {
    return fail(DDL_INTERNAL_ERROR, std::string(function) + ": " + error.what());
  }
}

bool toDataType(ddl_datatype type, ddl::DataType& out) {
  switch (type) {
    case DDL_FLOAT32: out = ddl::DataType::Float32; return true;
    case DDL_FLOAT64: out = ddl::DataType::Float64; return true;
    case DDL_FLOAT16: out = ddl::DataType::Float16; return true;
    case DDL_BFLOAT16: out = ddl::DataType::BFloat16; return true;
    case DDL_INT8: out = ddl::DataType::Int8; return true;
    case DDL_UINT8: out = ddl::DataType::UInt8; return true;
    case DDL_INT32: out = ddl::DataType::Int32; return true;
    case DDL_INT64: out = ddl::DataType::Int64; return true;
    case DDL_DATATYPE_MIN_ENUM:
    case DDL_DATATYPE_MAX_ENUM: return false;
  }
  return false;
}

bool toKind(ddl_collective collective, ddl::CollectiveKind& out) {
  switch (collective) {
    case DDL_ALLREDUCE: out = ddl::CollectiveKind::Allreduce; return true;
    case DDL_ALLGATHER: out = ddl::CollectiveKind::AllGather; return true;
    case DDL_REDUCE_SCATTER: out = ddl::CollectiveKind::ReduceScatter; return true;
    case DDL_COLLECTIVE_MIN_ENUM:
    case DDL_COLLECTIVE_MAX_ENUM: return false;
  }
  return false;
}

ddl::Reduction checkedOp(ddl_op op) {
  switch (op) {
    case DDL_SUM: return ddl::Reduction::Sum;
    case DDL_PROD: return ddl::Reduction::Product;
    case DDL_MIN: return ddl::Reduction::Min;
    case DDL_MAX: return ddl::Reduction::Max;
    case DDL_AVG: return ddl::Reduction::Average;
    case DDL_OP_MIN_ENUM:
    case DDL_OP_MAX_ENUM: break;
  }
  throw ddl::InvalidArgument("op", "unknown ddl_op " + std::to_string(static_cast<int>(op)) + " (DDL_SUM, DDL_PROD, DDL_MIN, DDL_MAX, DDL_AVG)");
}

ddl::DataType checkedType(ddl_datatype type) {
  ddl::DataType out{};
  if (!toDataType(type, out)) throw ddl::InvalidArgument("type", "unknown ddl_datatype " + std::to_string(static_cast<int>(type)));
  return out;
}

ddl::CollectiveKind checkedKind(ddl_collective collective) {
  ddl::CollectiveKind out{};
  if (!toKind(collective, out))
    throw ddl::InvalidArgument("collective", "unknown ddl_collective " + std::to_string(static_cast<int>(collective)));
  return out;
}

ddl::Communicator& checkedComm(ddl_comm comm) { return *liveComm(comm).communicator; }

ddl::Elements checkedCount(size_t count, const ddl::Communicator& comm, bool perRank) {
  const auto limit = static_cast<size_t>(std::numeric_limits<ddl::Elements>::max() / (perRank ? comm.size() : 1));
  if (count > limit) throw ddl::InvalidArgument("count", std::to_string(count) + " elements is more than the library addresses");
  return static_cast<ddl::Elements>(count);
}

std::string text(const char* value, const char* field) {
  if (!value) throw ddl::InvalidArgument(field, "a null string");
  return value;
}

// Where `mpi_comm` can make a communicator: MPI initialised, an intra-communicator; `comm` somewhere to put it.
void checkedMpiComm(MPI_Comm mpi_comm, ddl_comm* comm) {
  if (!comm) throw ddl::InvalidArgument("comm", "a null pointer");
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised) throw ddl::InvalidArgument("mpi_comm", "MPI is not initialised");
  if (mpi_comm == MPI_COMM_NULL) throw ddl::InvalidArgument("mpi_comm", "MPI_COMM_NULL");
  int inter = 0;
  MPI_Comm_test_inter(mpi_comm, &inter);
  if (inter) throw ddl::InvalidArgument("mpi_comm", "an inter-communicator");
}

bool mpiThreadMultiple() {
  int threads = MPI_THREAD_SINGLE;
  MPI_Query_thread(&threads);
  return threads == MPI_THREAD_MULTIPLE;
}

// A buffer in the memory `comm` moves: GPU memory on a communicator of ddl_comm_init_nccl, else not GPU
// memory (checked where the library was built with CUDA; a null buffer is for the collective to refuse).
void checkMemory(const ddl_comm_s& comm, const void* buffer, const char* field) {
#ifdef DDLSCALE_WITH_CUDA
  if (!buffer) return;
  if (comm.deviceMemory && !ddl::isDeviceMemory(buffer))
    throw ddl::InvalidArgument(field, "host memory, on a communicator of GPU memory (ddl_comm_init_nccl)");
#else
  (void)comm, (void)buffer, (void)field;
#endif
}

// A collective issued with a request, or waited for at once without one.
ddl_result finishOrHandOver(std::shared_ptr<ddl::CollectiveOutcome> completion, ddl_request* request) {
  if (request) {
    *request = reinterpret_cast<ddl_request>(requests().add(std::make_unique<ddl_request_s>(ddl_request_s{std::move(completion)})));
    return DDL_SUCCESS;
  }
  completion->wait();
  if (completion->result() != 0) return fail(static_cast<ddl_result>(completion->result()), completion->message());
  return DDL_SUCCESS;
}

template <class Issue>
ddl_result issued(const char* function, ddl_request* request, bool requestRequired, Issue&& issue) {
  if (requestRequired && !request) return fail(DDL_INVALID_ARGUMENT, std::string(function) + ": request: a null pointer");
  std::shared_ptr<ddl::CollectiveOutcome> completion;
  const ddl_result result = guarded(function, [&] { completion = issue(); });
  if (result != DDL_SUCCESS) return result;
  return finishOrHandOver(std::move(completion), request);
}

// Each collective's checks and issue, shared by its synchronous call and the one with a request.
std::shared_ptr<ddl::CollectiveOutcome> issueAllreduce(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type,
                                                       ddl_op op) {
  ddl_comm_s& live = liveComm(comm);  // one lookup per call: this is every collective's path
  ddl::Communicator& communicator = *live.communicator;
  checkMemory(live, send, "send");
  checkMemory(live, recv, "recv");
  return communicator.allreduce(send, recv, checkedCount(count, communicator, false), checkedType(type), checkedOp(op));
}

std::shared_ptr<ddl::CollectiveOutcome> issueReduceScatter(ddl_comm comm, const void* send, void* recv, size_t recvcount,
                                                           ddl_datatype type, ddl_op op) {
  ddl_comm_s& live = liveComm(comm);  // one lookup per call: this is every collective's path
  ddl::Communicator& communicator = *live.communicator;
  checkMemory(live, send, "send");
  checkMemory(live, recv, "recv");
  return communicator.reduceScatter(send, recv, checkedCount(recvcount, communicator, true), checkedType(type), checkedOp(op));
}

std::shared_ptr<ddl::CollectiveOutcome> issueAllGather(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type) {
  ddl_comm_s& live = liveComm(comm);  // one lookup per call: this is every collective's path
  ddl::Communicator& communicator = *live.communicator;
  checkMemory(live, send, "send");
  checkMemory(live, recv, "recv");
  return communicator.allGather(send, recv, checkedCount(count, communicator, true), checkedType(type));
}

std::shared_ptr<ddl::CollectiveOutcome> issueBroadcast(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int root) {
  ddl_comm_s& live = liveComm(comm);
  ddl::Communicator& communicator = *live.communicator;
  checkMemory(live, buffer, "buffer");
  return communicator.broadcast(buffer, checkedCount(count, communicator, false), checkedType(type), root);
}

// Point-to-point and all-to-all move host memory only: their messages bypass the schedules' GPU staging.
ddl::Communicator& hostOnly(ddl_comm comm) {
  ddl_comm_s& live = liveComm(comm);
  if (live.deviceMemory) throw Unsupported("point-to-point and all-to-all move host memory only, not a communicator of GPU memory");
  return *live.communicator;
}

std::shared_ptr<ddl::CollectiveOutcome> issueAllToAll(ddl_comm comm, const void* send, const size_t* sendcounts,
                                                      const size_t* sdispls, void* recv, const size_t* recvcounts,
                                                      const size_t* rdispls, ddl_datatype type) {
  ddl::Communicator& communicator = hostOnly(comm);
  const ddl::DataType checked = checkedType(type);
  auto blocks = [&](const size_t* counts, const size_t* displacements, const char* field) {
    if (!counts || !displacements) throw ddl::InvalidArgument(field, "a null array");
    ddl::Communicator::Blocks out;
    for (int r = 0; r < communicator.size(); ++r) {
      out.counts.push_back(checkedCount(counts[r], communicator, false));
      out.offsets.push_back(checkedCount(displacements[r], communicator, false));
    }
    return out;
  };
  const ddl::Communicator::Blocks sent = blocks(sendcounts, sdispls, "sendcounts");  // checked first, as declared
  return communicator.allToAll(send, sent, recv, blocks(recvcounts, rdispls, "recvcounts"), checked);
}

std::shared_ptr<ddl::CollectiveOutcome> issueSend(ddl_comm comm, const void* buffer, size_t count, ddl_datatype type, int peer,
                                                  int tag) {
  ddl::Communicator& communicator = hostOnly(comm);
  return communicator.send(buffer, checkedCount(count, communicator, false), checkedType(type), peer, tag);
}

std::shared_ptr<ddl::CollectiveOutcome> issueReceive(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int peer,
                                                     int tag) {
  ddl::Communicator& communicator = hostOnly(comm);
  return communicator.receive(buffer, checkedCount(count, communicator, false), checkedType(type), peer, tag);
}

std::shared_ptr<ddl::CollectiveOutcome> issueReceiveFromAny(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int tag,
                                                            int* source) {
  ddl::Communicator& communicator = hostOnly(comm);
  return communicator.receiveFromAny(buffer, checkedCount(count, communicator, false), checkedType(type), tag, source);
}

}  // namespace

extern "C" {

int ddl_version(void) { return DDL_VERSION_MAJOR * 10000 + DDL_VERSION_MINOR * 100 + DDL_VERSION_PATCH; }

const char* ddl_last_error(void) { return lastError.c_str(); }

ddl_result ddl_comm_init_mpi(MPI_Comm mpi_comm, ddl_comm* comm) {
  return guarded("ddl_comm_init_mpi", [&] {
    checkedMpiComm(mpi_comm, comm);
    *comm = commHandle(std::make_unique<ddl_comm_s>(ddl_comm_s{
        std::make_unique<ddl::Communicator>(ddl::MpiTransport::overDuplicateOf(mpi_comm, ddl::Communicator::kDefaultTimeout),
                                            mpiThreadMultiple())}));
  });
}

ddl_result ddl_comm_init_nccl(MPI_Comm mpi_comm, ddl_comm* comm) {
  return guarded("ddl_comm_init_nccl", [&] {
    checkedMpiComm(mpi_comm, comm);
#ifdef DDLSCALE_WITH_CUDA
    // Every rank refuses alike, or none does: a rank that went on would wait in NCCL's setup forever.
    std::string why;
    int everyRankHasOne = ddl::cudaDevices(&why) > 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &everyRankHasOne, 1, MPI_INT, MPI_MIN, mpi_comm);
    if (!everyRankHasOne)
      throw Unsupported(why.empty() ? "another rank sees no CUDA GPU" : "this rank sees no CUDA GPU: " + why);
    auto control = ddl::MpiTransport::overDuplicateOf(mpi_comm, ddl::Communicator::kDefaultTimeout);
    auto data = std::make_unique<ddl::NcclTransport>(std::make_unique<ddl::NcclMpiBootstrap>(control->communicator()));
    *comm = commHandle(std::make_unique<ddl_comm_s>(
        ddl_comm_s{std::make_unique<ddl::Communicator>(std::move(data), mpiThreadMultiple(), std::move(control)), true}));
#else
    throw Unsupported("this libddlscale was built without CUDA (DDLSCALE_CUDA=OFF): it moves host memory only");
#endif
  });
}

ddl_result ddl_comm_init_tcp(int rank, int size, const char* root_address, ddl_comm* comm) {
  return guarded("ddl_comm_init_tcp", [&] {
    if (!comm) throw ddl::InvalidArgument("comm", "a null pointer");
    const ddl::tcp::Endpoint root = ddl::tcp::parseEndpoint(text(root_address, "root_address"), "root_address");
    std::size_t eagerLimit = ddl::TcpTransport::kDefaultEagerLimit;
    if (const char* limit = std::getenv("DDLSCALE_TCP_EAGER_LIMIT"); limit && *limit)
      eagerLimit = static_cast<std::size_t>(ddl::parseByteSize(limit, "DDLSCALE_TCP_EAGER_LIMIT"));
    const auto deadline = ddl::tcp::Clock::now() + ddl::Communicator::kDefaultTimeout;
    // connectMesh checks the rank and the size before it touches the network.
    auto transport = std::make_unique<ddl::TcpTransport>(rank, ddl::tcp::connectMesh(rank, size, root, deadline), eagerLimit);
    *comm = commHandle(std::make_unique<ddl_comm_s>(ddl_comm_s{std::make_unique<ddl::Communicator>(std::move(transport), true)}));
  });
}

ddl_result ddl_comm_destroy(ddl_comm comm) {
  return guarded("ddl_comm_destroy", [&] {
    if (!comm) return;  // null is ignored, as free(NULL)
    if (!communicators().remove(numberOf(comm)))
      throw ddl::InvalidArgument("comm", "not a live communicator (destroyed already, or never made by ddl_comm_init_*)");
  });
}

ddl_result ddl_comm_rank(ddl_comm comm, int* rank) {
  return guarded("ddl_comm_rank", [&] {
    const ddl::Communicator& communicator = checkedComm(comm);
    if (!rank) throw ddl::InvalidArgument("rank", "a null pointer");
    *rank = communicator.rank();
  });
}

ddl_result ddl_comm_size(ddl_comm comm, int* size) {
  return guarded("ddl_comm_size", [&] {
    const ddl::Communicator& communicator = checkedComm(comm);
    if (!size) throw ddl::InvalidArgument("size", "a null pointer");
    *size = communicator.size();
  });
}

ddl_result ddl_comm_set_timeout(ddl_comm comm, double seconds) {
  return guarded("ddl_comm_set_timeout", [&] { checkedComm(comm).setTimeout(seconds); });
}

ddl_result ddl_comm_set_algorithm(ddl_comm comm, ddl_collective collective, const char* name, const char* options) {
  return guarded("ddl_comm_set_algorithm", [&] {
    checkedComm(comm).setAlgorithm(checkedKind(collective), text(name, "name"), options ? options : "");
  });
}

ddl_result ddl_comm_set_tuning(ddl_comm comm, ddl_collective collective, const char* path) {
  return guarded("ddl_comm_set_tuning", [&] { checkedComm(comm).setTuning(checkedKind(collective), text(path, "path")); });
}

ddl_result ddl_comm_set_schedule(ddl_comm comm, ddl_collective collective, const char* path) {
  return guarded("ddl_comm_set_schedule",
                 [&] { checkedComm(comm).setSchedule(checkedKind(collective), text(path, "path")); });
}

ddl_result ddl_comm_describe(ddl_comm comm, ddl_collective collective, size_t bytes, char* text, size_t capacity) {
  return guarded("ddl_comm_describe", [&] {
    const std::string description = checkedComm(comm).describe(checkedKind(collective), static_cast<double>(bytes));
    if (!text || capacity == 0) throw ddl::InvalidArgument("text", "no room for the description");
    const size_t length = std::min(description.size(), capacity - 1);
    description.copy(text, length);
    text[length] = '\0';
  });
}

ddl_result ddl_iallreduce(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type, ddl_op op,
                          ddl_request* request) {
  return issued("ddl_iallreduce", request, true, [&] { return issueAllreduce(comm, send, recv, count, type, op); });
}

ddl_result ddl_allreduce(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type, ddl_op op) {
  return issued("ddl_allreduce", nullptr, false, [&] { return issueAllreduce(comm, send, recv, count, type, op); });
}

ddl_result ddl_ireduce_scatter(ddl_comm comm, const void* send, void* recv, size_t recvcount, ddl_datatype type, ddl_op op,
                               ddl_request* request) {
  return issued("ddl_ireduce_scatter", request, true, [&] { return issueReduceScatter(comm, send, recv, recvcount, type, op); });
}

ddl_result ddl_reduce_scatter(ddl_comm comm, const void* send, void* recv, size_t recvcount, ddl_datatype type, ddl_op op) {
  return issued("ddl_reduce_scatter", nullptr, false, [&] { return issueReduceScatter(comm, send, recv, recvcount, type, op); });
}

ddl_result ddl_iallgather(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type, ddl_request* request) {
  return issued("ddl_iallgather", request, true, [&] { return issueAllGather(comm, send, recv, count, type); });
}

ddl_result ddl_allgather(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type) {
  return issued("ddl_allgather", nullptr, false, [&] { return issueAllGather(comm, send, recv, count, type); });
}

ddl_result ddl_ibroadcast(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int root, ddl_request* request) {
  return issued("ddl_ibroadcast", request, true, [&] { return issueBroadcast(comm, buffer, count, type, root); });
}

ddl_result ddl_broadcast(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int root) {
  return issued("ddl_broadcast", nullptr, false, [&] { return issueBroadcast(comm, buffer, count, type, root); });
}

ddl_result ddl_alltoallv(ddl_comm comm, const void* send, const size_t* sendcounts, const size_t* sdispls, void* recv,
                         const size_t* recvcounts, const size_t* rdispls, ddl_datatype type) {
  return issued("ddl_alltoallv", nullptr, false,
                [&] { return issueAllToAll(comm, send, sendcounts, sdispls, recv, recvcounts, rdispls, type); });
}

ddl_result ddl_ialltoallv(ddl_comm comm, const void* send, const size_t* sendcounts, const size_t* sdispls, void* recv,
                          const size_t* recvcounts, const size_t* rdispls, ddl_datatype type, ddl_request* request) {
  return issued("ddl_ialltoallv", request, true,
                [&] { return issueAllToAll(comm, send, sendcounts, sdispls, recv, recvcounts, rdispls, type); });
}

ddl_result ddl_isend(ddl_comm comm, const void* buffer, size_t count, ddl_datatype type, int peer, int tag, ddl_request* request) {
  return issued("ddl_isend", request, true, [&] { return issueSend(comm, buffer, count, type, peer, tag); });
}

ddl_result ddl_send(ddl_comm comm, const void* buffer, size_t count, ddl_datatype type, int peer, int tag) {
  return issued("ddl_send", nullptr, false, [&] { return issueSend(comm, buffer, count, type, peer, tag); });
}

ddl_result ddl_irecv(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int peer, int tag, ddl_request* request) {
  return issued("ddl_irecv", request, true, [&] { return issueReceive(comm, buffer, count, type, peer, tag); });
}

ddl_result ddl_recv(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int peer, int tag) {
  return issued("ddl_recv", nullptr, false, [&] { return issueReceive(comm, buffer, count, type, peer, tag); });
}

ddl_result ddl_irecv_any(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int tag, int* source, ddl_request* request) {
  return issued("ddl_irecv_any", request, true, [&] { return issueReceiveFromAny(comm, buffer, count, type, tag, source); });
}

ddl_result ddl_recv_any(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int tag, int* source) {
  return issued("ddl_recv_any", nullptr, false, [&] { return issueReceiveFromAny(comm, buffer, count, type, tag, source); });
}

ddl_result ddl_barrier(ddl_comm comm) {
  return issued("ddl_barrier", nullptr, false, [&] { return checkedComm(comm).barrier(); });
}

ddl_result ddl_wait(ddl_request request) {
  if (!request) return fail(DDL_INVALID_ARGUMENT, "ddl_wait: request: a null request");
  std::unique_ptr<ddl_request_s> owned = requests().remove(numberOf(request));
  if (!owned) return fail(DDL_INVALID_ARGUMENT, "ddl_wait: request: not a live request (waited for already, or never made)");
  owned->completion->wait();
  if (owned->completion->result() != 0)
    return fail(static_cast<ddl_result>(owned->completion->result()), owned->completion->message());
  return DDL_SUCCESS;
}

ddl_result ddl_test(ddl_request request, int* done) {
  if (!request) return fail(DDL_INVALID_ARGUMENT, "ddl_test: request: a null request");
  if (!done) return fail(DDL_INVALID_ARGUMENT, "ddl_test: done: a null pointer");
  const ddl_request_s* live = requests().find(numberOf(request));
  if (!live) return fail(DDL_INVALID_ARGUMENT, "ddl_test: request: not a live request (waited for already, or never made)");
  *done = live->completion->done() ? 1 : 0;
  return DDL_SUCCESS;
}

}  // extern "C"
