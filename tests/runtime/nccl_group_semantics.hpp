#pragma once
// NCCL's point-to-point semantics, laid over another transport, so that they can be tested without a
// GPU. NcclTransport issues the sends and receives of one channel posted between two waits as one NCCL
// group on that channel's stream; NCCL then runs a stream's groups one after another, lets a group's
// messages progress only once the group is running, and finishes the group as a whole. This transport
// does the same on top of an in-process one: a schedule that completes here cannot deadlock on NCCL
// through the way the runtime groups its messages. Reductions run on a stream of their own in
// NcclTransport and pass straight through.
//
// With LazyConnections it also connects as NCCL does: a pair of ranks on a communicator (a channel) at
// their first message, inside the ncclGroupEnd that issues it, which blocks the issuing rank until the
// peer's ncclGroupEnd reaches the same connection; channels are issued one after another. A wait that
// would block forever there is counted as a stall and let through, so that a test ends and says so.

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "runtime/transport.hpp"

namespace ddl::testing {

// What the ranks (threads) of one job share of NCCL's connections.
class LazyConnections {
 public:
  explicit LazyConnections(std::chrono::milliseconds patience) : patience_(patience) {}

  // Rank `me` calls ncclGroupEnd on `channel` with messages to or from `peers`: it returns once every peer
  // has reached its own side of the pair's connection (at once for pairs connected before), or, where NCCL
  // would wait forever, after the patience, counting a stall.
  void groupEnd(Rank me, Channel channel, const std::vector<Rank>& peers) {
    std::unique_lock lock(mutex_);
    for (Rank peer : peers) reached_.insert({channel, me, peer});
    changed_.notify_all();
    const bool connected = changed_.wait_for(lock, patience_, [&] {
      for (Rank peer : peers)
        if (!reached_.count({channel, peer, me})) return false;
      return true;
    });
    if (!connected) ++stalls_;
  }
  int stalls() {
    std::lock_guard lock(mutex_);
    return stalls_;
  }

 private:
  std::chrono::milliseconds patience_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<std::tuple<Channel, Rank, Rank>> reached_;  // (channel, rank, peer): rank has reached the pair's connection
  int stalls_ = 0;
};

class NcclGroupSemantics final : public Transport {
 public:
  // `connectsFirst`: whether connectPeers connects (NcclTransport's way), or does nothing, as before it did.
  explicit NcclGroupSemantics(Transport& inner, LazyConnections* connections = nullptr, bool connectsFirst = true)
      : inner_(inner), connections_(connections), connectsFirst_(connectsFirst) {}

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
      if (connections_) {
        std::vector<Rank> peers;
        for (const Posted& posted : group) peers.push_back(posted.peer);
        connections_->groupEnd(rank(), channel, peers);
      }
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

  // As NcclTransport does: a group per channel, channels in order, with every peer not connected before.
  void connectPeers(const ChannelPeers& peers) override {
    if (!connections_ || !connectsFirst_) return;
    for (std::size_t channel = 0; channel < peers.size(); ++channel)
      if (!peers[channel].empty()) connections_->groupEnd(rank(), static_cast<Channel>(channel), peers[channel]);
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
  LazyConnections* connections_;
  bool connectsFirst_;
  RequestId next_ = 0;
  std::map<Channel, std::vector<Posted>> unissued_;
  std::map<Channel, Stream> streams_;
  std::unordered_map<RequestId, Channel> messageChannel_;  // inner message -> its channel
  std::unordered_map<RequestId, RequestId> reductions_;    // inner reduction -> ours
};

}  // namespace ddl::testing
