#include "runtime/nccl/nccl_transport.hpp"

#include <sched.h>

#include <cstdio>
#include <cstdlib>

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/cuda_error.hpp"
#include "runtime/cuda/event_completion.hpp"
#include "runtime/cuda/reduce_kernels.hpp"
#include "runtime/in_flight.hpp"

namespace ddl {

void checkNccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess && result != ncclInProgress)
    throw TransportError(std::string(call) + ": " + ncclGetErrorString(result));
}

NcclTransport::NcclTransport(std::unique_ptr<NcclBootstrap> bootstrap)
    : bootstrap_(std::move(bootstrap)), rank_(bootstrap_->rank()), size_(bootstrap_->size()) {
  int devices = 0;
  DDL_CUDA(cudaGetDeviceCount(&devices));
  device_ = bootstrap_->device(devices);
  DDL_CUDA(cudaSetDevice(device_));
  loadReduceKernels();
  DDL_CUDA(cudaStreamCreateWithFlags(&reduceStream_, cudaStreamNonBlocking));
  DDL_CUDA(cudaMalloc(&connectionBytes_, 2));
  DDL_CUDA(cudaEventCreateWithFlags(&callersWork_, cudaEventDisableTiming));
  const ncclUniqueId id = bootstrap_->uniqueId();
  ncclComm_t first;
  {
    const auto wait = bootstrap_->waitingIn("ncclCommInitRank", true);
    DDL_NCCL(ncclCommInitRank(&first, size_, id, rank_));
  }
  addChannel(first);
}

NcclTransport::~NcclTransport() {
  // With work in flight (a wait that failed, an exception past a run) ncclCommDestroy would wait for kernels
  // that wait for peers: those communicators are aborted instead.
  const bool idle = inFlight_.empty() && unissued_.empty();
  for (const ChannelLane& lane : channels_) {
    if (idle)
      ncclCommDestroy(lane.comm);
    else
      ncclCommAbort(lane.comm);
    cudaStreamDestroy(lane.stream);
  }
  cudaStreamDestroy(reduceStream_);
  cudaFree(connectionBytes_);
  cudaEventDestroy(callersWork_);
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
    {
      const auto wait = bootstrap_->waitingIn("ncclCommSplit", true);
      DDL_NCCL(ncclCommSplit(channels_.front().comm, 0, rank_, &comm, nullptr));
    }
    addChannel(comm);
  }
}

void NcclTransport::connectPeers(const ChannelPeers& peers) {
  // A byte each way with every peer not connected yet, one group per channel, channels in order: every
  // pair's ncclGroupEnd meets its peer's on the same channel, after both have finished the channels below.
  for (std::size_t c = 0; c < peers.size(); ++c) {
    const auto channel = static_cast<Channel>(c);
    std::vector<Rank> fresh;
    for (Rank peer : peers[c])
      if (connected_.insert({channel, peer}).second) fresh.push_back(peer);
    if (fresh.empty()) continue;
    if (c >= channels_.size()) throw TransportError("channel " + std::to_string(c) + " was not reserved");
    const ChannelLane& lane = channels_[c];
    {
      const auto wait = bootstrap_->waitingIn("connecting NCCL's peers", true);
      DDL_NCCL(ncclGroupStart());
      for (Rank peer : fresh) {
        DDL_NCCL(ncclSend(connectionBytes_, 1, ncclUint8, peer, lane.comm, lane.stream));
        DDL_NCCL(ncclRecv(connectionBytes_ + 1, 1, ncclUint8, peer, lane.comm, lane.stream));
      }
      DDL_NCCL(ncclGroupEnd());
    }
    waitForStream(lane.stream);
  }
}

void NcclTransport::orderAfterCallersWork() {
  DDL_CUDA(cudaEventRecord(callersWork_, cudaStreamLegacy));
  for (const ChannelLane& lane : channels_) DDL_CUDA(cudaStreamWaitEvent(lane.stream, callersWork_, 0));
  DDL_CUDA(cudaStreamWaitEvent(reduceStream_, callersWork_, 0));
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
  const auto wait = bootstrap_->waitingIn("a schedule's NCCL operations", false);
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
  bootstrap_->endJob(message);
  std::abort();  // endJob does not return; the compiler cannot see that through the virtual call
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
