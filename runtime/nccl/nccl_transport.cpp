#include "runtime/nccl/nccl_transport.hpp"

#include <sched.h>

#include <cstdio>

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/cuda_error.hpp"
#include "runtime/cuda/event_completion.hpp"
#include "runtime/cuda/reduce_kernels.hpp"
#include "runtime/in_flight.hpp"

namespace ddl {
namespace {

// This process's index among the job's processes on its node.
int localRank(MPI_Comm communicator) {
  MPI_Comm node;
  MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

}  // namespace

void checkNccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess && result != ncclInProgress)
    throw TransportError(std::string(call) + ": " + ncclGetErrorString(result));
}

NcclTransport::NcclTransport(MPI_Comm communicator, SilenceWatchdog* watchdog) : mpi_(communicator), watchdog_(watchdog) {
  MPI_Comm_rank(mpi_, &rank_);
  MPI_Comm_size(mpi_, &size_);
  int devices = 0;
  DDL_CUDA(cudaGetDeviceCount(&devices));
  int local = 0;
  watched("finding the ranks on this node (MPI_Comm_split_type)", [&] { local = localRank(mpi_); });
  device_ = local % devices;
  DDL_CUDA(cudaSetDevice(device_));
  DDL_CUDA(cudaStreamCreateWithFlags(&reduceStream_, cudaStreamNonBlocking));
  ncclUniqueId id;
  if (rank_ == 0) DDL_NCCL(ncclGetUniqueId(&id));
  watched("the broadcast of NCCL's unique id", [&] { MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, mpi_); });
  ncclComm_t first;
  watched("ncclCommInitRank", [&] { DDL_NCCL(ncclCommInitRank(&first, size_, id, rank_)); });
  addChannel(first);
}

NcclTransport::~NcclTransport() {
  for (const ChannelLane& lane : channels_) {
    ncclCommDestroy(lane.comm);
    cudaStreamDestroy(lane.stream);
  }
  cudaStreamDestroy(reduceStream_);
}

const NcclTransport::ChannelLane& NcclTransport::firstLane() const {
  if (channels_.empty()) throw TransportError("NCCL's communicators were aborted after an asynchronous error");
  return channels_.front();
}

void NcclTransport::addChannel(ncclComm_t comm) {
  cudaStream_t stream = nullptr;
  const cudaError_t created = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (created != cudaSuccess) ncclCommDestroy(comm);
  checkCuda(created, "cudaStreamCreateWithFlags");
  channels_.push_back({comm, stream});
}

void NcclTransport::reserveChannels(int channels) {
  while (static_cast<int>(channels_.size()) < channels) {
    ncclComm_t comm;
    watched("ncclCommSplit", [&] { DDL_NCCL(ncclCommSplit(channels_.front().comm, 0, rank_, &comm, nullptr)); });
    addChannel(comm);
  }
}

void NcclTransport::adoptThread() { DDL_CUDA(cudaSetDevice(device_)); }

RequestId NcclTransport::postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) {
  unissued_[channel].push_back({next_, true, peer, const_cast<void*>(data), bytes});
  return next_++;
}

RequestId NcclTransport::postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) {
  unissued_[channel].push_back({next_, false, peer, data, bytes});
  return next_++;
}

RequestId NcclTransport::postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) {
  launchReduce(into, local, from, count, type, op, reduceStream_);
  inFlight_.emplace_back(next_, std::make_shared<EventCompletion>(reduceStream_));
  return next_++;
}

void NcclTransport::issueGroups() {
  for (const auto& [channel, posted] : unissued_)
    if (channel < 0 || static_cast<std::size_t>(channel) >= channels_.size())
      throw TransportError("channel " + std::to_string(channel) + " was not reserved");
  // One group per channel; within it the posting order, which NCCL keeps when it matches a pair's sends
  // and receives.
  for (const auto& [channel, group] : unissued_) {
    const ChannelLane& lane = channels_[static_cast<std::size_t>(channel)];
    DDL_NCCL(ncclGroupStart());
    for (const Posted& posted : group) {
      if (posted.sending) {
        DDL_NCCL(ncclSend(posted.data, posted.bytes, ncclUint8, posted.peer, lane.comm, lane.stream));
      } else {
        DDL_NCCL(ncclRecv(posted.data, posted.bytes, ncclUint8, posted.peer, lane.comm, lane.stream));
      }
    }
    DDL_NCCL(ncclGroupEnd());
    const std::shared_ptr<Completion> finished = std::make_shared<EventCompletion>(lane.stream);
    for (const Posted& posted : group) inFlight_.emplace_back(posted.id, finished);
  }
  unissued_.clear();
}

void NcclTransport::checkAsyncErrors() {
  for (const ChannelLane& lane : channels_) {
    ncclResult_t asyncError = ncclSuccess;
    DDL_NCCL(ncclCommGetAsyncError(lane.comm, &asyncError));
    if (asyncError == ncclSuccess || asyncError == ncclInProgress) continue;
    // NCCL's rule after an asynchronous error: abort the communicators, whose kernels may never end, before
    // anything else touches them (the destructor's ncclCommDestroy, a cudaFree, would wait on them).
    for (const ChannelLane& aborted : channels_) ncclCommAbort(aborted.comm);
    for (const ChannelLane& aborted : channels_) cudaStreamDestroy(aborted.stream);
    channels_.clear();
    checkNccl(asyncError, "NCCL (asynchronous error)");
  }
}

void NcclTransport::waitForStream(cudaStream_t stream) {
  EventCompletion done(stream);
  while (!done.done()) {
    checkAsyncErrors();
    sched_yield();
  }
}

void NcclTransport::waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) {
  issueGroups();
  if (inFlight_.empty()) throw TransportError("waiting with nothing in flight");
  std::optional<SilenceWatchdog::Wait> wait;
  if (watchdog_) wait.emplace(*watchdog_, "a schedule's NCCL operations");
  const auto deadline = std::chrono::steady_clock::now() + patience;
  const std::size_t before = finished.size();
  while (true) {
    takeFinished(inFlight_, [](const std::shared_ptr<Completion>& completion) { return completion->done(); }, finished);
    if (finished.size() > before) return;
    checkAsyncErrors();
    if (std::chrono::steady_clock::now() > deadline)
      throw TransportError(std::to_string(inFlight_.size()) + " operations still waiting for their peers");
    sched_yield();
  }
}

void NcclTransport::abortJob(const std::string& message) {
  for (const ChannelLane& lane : channels_) ncclCommAbort(lane.comm);
  channels_.clear();
  if (watchdog_) watchdog_->stopJob(message);
  std::fprintf(stderr, "ddlrun: rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  MPI_Abort(mpi_, 3);
  std::abort();  // MPI_Abort does not return
}

void* NcclTransport::allocate(std::size_t bytes) {
  void* memory = nullptr;
  DDL_CUDA(cudaMalloc(&memory, bytes));
  return memory;
}

void NcclTransport::deallocate(void* memory) { cudaFree(memory); }

void NcclTransport::upload(void* to, const void* from, std::size_t bytes) {
  DDL_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the copy has landed, and the streams that read the
  // buffer next do not wait for the default stream (non-blocking): wait for it here.
  DDL_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

void NcclTransport::download(void* to, const void* from, std::size_t bytes) {
  DDL_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToHost));
}

void NcclTransport::copy(void* to, const void* from, std::size_t bytes) {
  DDL_CUDA(cudaMemcpy(to, from, bytes, cudaMemcpyDeviceToDevice));
  DDL_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}

void NcclTransport::divide(void* data, std::size_t count, DataType type, int divisor) {
  // On the reduction stream, after the run's last reduction, which the run has waited for.
  launchDivide(data, count, type, divisor, reduceStream_);
  DDL_CUDA(cudaStreamSynchronize(reduceStream_));
}

std::string NcclTransport::deviceDescription() const { return describeCudaDevice(device_); }

}  // namespace ddl
