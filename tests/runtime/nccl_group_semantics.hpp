#pragma once
// NCCL's point-to-point semantics, laid over another transport, so that they can be tested without a
// GPU. NcclTransport issues the sends and receives of one channel posted between two waits as one NCCL
// group on that channel's stream; NCCL then runs a stream's groups one after another, lets a group's
// messages progress only once the group is running, and finishes the group as a whole. This transport
// does the same on top of an in-process one: a schedule that completes here cannot deadlock on NCCL
// through the way the runtime groups its messages. Reductions run on a stream of their own in
// NcclTransport and pass straight through.

#include <cstdlib>
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

#include "runtime/transport.hpp"

namespace ddl::testing {

class NcclGroupSemantics final : public Transport {
 public:
  explicit NcclGroupSemantics(Transport& inner) : inner_(inner) {}

  Rank rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) override {
    unissued_[channel].push_back({next_, true, peer, channel, const_cast<void*>(data), bytes});
    return next_++;
  }
  RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) override {
    unissued_[channel].push_back({next_, false, peer, channel, data, bytes});
    return next_++;
  }
  RequestId postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) override {
    reductions_[inner_.postReduce(into, local, from, count, type, op)] = next_;
    return next_++;
  }

  void waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& done) override {
    for (auto& [channel, group] : unissued_) {
      Stream& stream = streams_[channel];
      stream.queued.push_back(std::move(group));
      startNextGroup(stream);
    }
    unissued_.clear();
    const std::size_t before = done.size();
    while (done.size() == before) {
      for (RequestId id : waitSomeWithin(inner_, patience)) {
        if (auto reduction = reductions_.find(id); reduction != reductions_.end()) {
          done.push_back(reduction->second);
          reductions_.erase(reduction);
          continue;
        }
        Stream& stream = streams_[messageChannel_.at(id)];
        messageChannel_.erase(id);
        if (--stream.outstanding == 0) {  // the running group has finished as a whole
          for (const Posted& posted : stream.running) done.push_back(posted.id);
          stream.running.clear();
          startNextGroup(stream);
        }
      }
    }
  }

  [[noreturn]] void abortJob(const std::string& message) override {
    inner_.abortJob(message);
    std::abort();  // the inner transport's abortJob does not return either
  }
  bool memoryIsHost() const override { return inner_.memoryIsHost(); }
  void* allocate(std::size_t bytes) override { return inner_.allocate(bytes); }
  void deallocate(void* memory) override { inner_.deallocate(memory); }
  void upload(void* to, const void* from, std::size_t bytes) override { inner_.upload(to, from, bytes); }
  void download(void* to, const void* from, std::size_t bytes) override { inner_.download(to, from, bytes); }
  void copy(void* to, const void* from, std::size_t bytes) override { inner_.copy(to, from, bytes); }

 private:
  struct Posted {
    RequestId id;
    bool sending;
    Rank peer;
    Channel channel;
    void* data;
    std::size_t bytes;
  };
  // A channel's stream: the group it runs and the groups waiting behind it.
  struct Stream {
    std::deque<std::vector<Posted>> queued;
    std::vector<Posted> running;
    std::size_t outstanding = 0;
  };

  // The stream reaches the next group once the one before has finished: only then are its messages posted.
  void startNextGroup(Stream& stream) {
    if (!stream.running.empty() || stream.queued.empty()) return;
    stream.running = std::move(stream.queued.front());
    stream.queued.pop_front();
    for (const Posted& posted : stream.running) {
      const RequestId inner = posted.sending ? inner_.postSend(posted.peer, posted.channel, posted.data, posted.bytes)
                                             : inner_.postReceive(posted.peer, posted.channel, posted.data, posted.bytes);
      messageChannel_[inner] = posted.channel;
    }
    stream.outstanding = stream.running.size();
  }

  Transport& inner_;
  RequestId next_ = 0;
  std::map<Channel, std::vector<Posted>> unissued_;
  std::map<Channel, Stream> streams_;
  std::unordered_map<RequestId, Channel> messageChannel_;  // inner message -> its channel
  std::unordered_map<RequestId, RequestId> reductions_;    // inner reduction -> ours
};

}  // namespace ddl::testing
