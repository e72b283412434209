#pragma once
// Matches the sends and receives of ranks that are threads of one process. Messages from one rank to
// another on one channel pair up in the order they are posted (as MPI's do for one tag); whichever side
// posts second starts the engine's copy, so bytes move exactly once, straight from the sender's buffer to
// the receiver's. Each rank learns of its matched messages through its own notification counter.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/in_process/in_process_engine.hpp"

namespace ddl {

// One posted message or reduction as its rank sees it.
struct PostedWork {
  std::atomic<bool> started{false};      // set once the work has been handed to the engine (or failed)
  std::shared_ptr<Completion> completion;  // null once started: finished when started
  std::string error;                        // why it failed, if it did
};

class InProcessFabric {
 public:
  InProcessFabric(int ranks, InProcessEngine& engine);

  int ranks() const { return static_cast<int>(news_.size()); }
  InProcessEngine& engine() { return engine_; }

  // Posts one side of a message between `self` and `peer`. Throws TransportError if the two sides
  // disagree on its size (the peer's side fails too).
  std::shared_ptr<PostedWork> post(Rank self, Rank peer, Channel channel, bool sending, void* data, std::size_t bytes);

  // Rank `rank`'s notification counter: it changes whenever some of the rank's work starts.
  std::uint64_t newsOf(Rank rank);
  // Blocks until rank `rank`'s counter differs from `seen`, or until `until`.
  void waitForNews(Rank rank, std::uint64_t seen, std::chrono::steady_clock::time_point until);

 private:
  struct Side {
    Rank owner;
    void* data;
    std::size_t bytes;
    std::shared_ptr<PostedWork> work;
  };
  struct Queues {
    std::deque<Side> sends;
    std::deque<Side> receives;
  };
  struct News {
    std::mutex mutex;
    std::condition_variable changed;
    std::uint64_t counter = 0;
  };

  void announce(Rank rank);

  InProcessEngine& engine_;
  std::mutex mutex_;
  std::map<std::tuple<Rank, Rank, Channel>, Queues> queues_;  // (from, to, channel)
  std::vector<std::unique_ptr<News>> news_;
};

}  // namespace ddl
