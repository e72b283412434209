#pragma once
// The Transport over NCCL point-to-point: each rank on one GPU of its own, the ranks MPI processes or the
// threads of one process (NcclBootstrap says which, and how they meet). NCCL has no message tags, so each channel gets
// its own communicator (ncclCommSplit of the first) and its own stream. Sends and receives posted between
// two waits are issued as one NCCL group per channel (ncclGroupStart; ncclSend/ncclRecv ...; ncclGroupEnd)
// on that channel's stream, followed by an event: NCCL lets operations progress together only inside one
// group, and the runner posts together exactly what the schedule lets be in flight together. A group
// holds back every later group on its stream until it has finished as a whole; one stream for all
// channels would deadlock schedules whose channels wait on each other crosswise (the double binary
// tree's two trees do, tests/runtime/nccl_group_semantics.hpp shows how). Reductions run as launchReduce on
// a stream of their own; a wait polls the events. The bootstrap shares NCCL's unique id and ends the job;
// every blocking call of the setup (NCCL's among them) is announced to it, so that under MPI's watchdog a
// peer that never joins ends the job, named.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <map>
#include <set>
#include <utility>
#include <memory>
#include <vector>

#include "runtime/completion.hpp"
#include "runtime/nccl/nccl_bootstrap.hpp"
#include "runtime/transport.hpp"

namespace ddl {

class NcclTransport final : public Transport {
 public:
  // Every rank of the bootstrap's job constructs it together. Throws TransportError if the GPU or NCCL fails.
  explicit NcclTransport(std::unique_ptr<NcclBootstrap> bootstrap);
  ~NcclTransport() override;
  NcclTransport(const NcclTransport&) = delete;
  NcclTransport& operator=(const NcclTransport&) = delete;

  Rank rank() const override { return rank_; }
  int size() const override { return size_; }
  int device() const { return device_; }
  // Channel 0's communicator and stream, which the NCCL baseline's collectives use too.
  // TransportError once an asynchronous error has aborted the communicators.
  ncclComm_t communicator() const { return firstLane().comm; }
  cudaStream_t stream() const { return firstLane().stream; }
  NcclBootstrap& bootstrap() const { return *bootstrap_; }
  // Waits until the work issued so far on `stream` is done, asking NCCL for its asynchronous errors
  // meanwhile: a failure inside NCCL (on every rank at once, which the watchdog takes for slowness) ends the
  // wait with a TransportError, where cudaStreamSynchronize would block forever.
  void waitForStream(cudaStream_t stream);

  RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) override;
  RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) override;
  RequestId postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) override;
  void waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) override;
  [[noreturn]] void abortJob(const std::string& message) override;
  void reserveChannels(int channels) override;
  void connectPeers(const ChannelPeers& peers) override;
  void orderAfterCallersWork() override;
  void adoptThread() override;

  bool memoryIsHost() const override { return false; }
  void* allocate(std::size_t bytes) override;
  void deallocate(void* memory) override;
  void upload(void* to, const void* from, std::size_t bytes) override;
  void download(void* to, const void* from, std::size_t bytes) override;
  void copy(void* to, const void* from, std::size_t bytes) override;
  void divide(void* data, std::size_t count, DataType type, int divisor) override;
  std::string deviceDescription() const override;

 private:
  struct Posted {
    RequestId id;
    bool sending;
    Rank peer;
    void* data;
    std::size_t bytes;
  };
  // A channel's communicator and the stream its groups run on, one after another.
  struct ChannelLane {
    ncclComm_t comm;
    cudaStream_t stream;
  };
  const ChannelLane& firstLane() const;
  void addChannel(ncclComm_t comm);
  void issueGroups();
  void checkAsyncErrors();

  std::unique_ptr<NcclBootstrap> bootstrap_;
  Rank rank_ = 0;
  int size_ = 1;
  int device_ = 0;
  cudaStream_t reduceStream_ = nullptr;
  cudaEvent_t callersWork_ = nullptr;  // recorded on the default stream by orderAfterCallersWork
  std::vector<ChannelLane> channels_;  // indexed by channel
  std::set<std::pair<Channel, Rank>> connected_;  // by connectPeers
  char* connectionBytes_ = nullptr;               // on the GPU: the byte each connection sends, and one to receive into
  RequestId next_ = 0;
  std::map<Channel, std::vector<Posted>> unissued_;  // posted since the last wait, by channel
  std::vector<std::pair<RequestId, std::shared_ptr<Completion>>> inFlight_;
};

// Throws TransportError naming the call if an NCCL call failed.
void checkNccl(ncclResult_t result, const char* call);

}  // namespace ddl

#define DDL_NCCL(call) ::ddl::checkNccl((call), #call)
