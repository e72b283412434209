#include "runtime/in_process/in_process_fabric.hpp"

#include "runtime/transport.hpp"

namespace ddl {

InProcessFabric::InProcessFabric(int ranks, InProcessEngine& engine) : engine_(engine) {
  for (int rank = 0; rank < ranks; ++rank) news_.push_back(std::make_unique<News>());
}

std::shared_ptr<PostedWork> InProcessFabric::post(Rank self, Rank peer, Channel channel, bool sending, void* data,
                                                  std::size_t bytes) {
  auto work = std::make_shared<PostedWork>();
  const Side mine{self, data, bytes, work};
  Side send, receive;
  {
    std::lock_guard lock(mutex_);
    Queues& queues = queues_[sending ? std::tuple{self, peer, channel} : std::tuple{peer, self, channel}];
    std::deque<Side>& waiting = sending ? queues.receives : queues.sends;
    if (waiting.empty()) {
      (sending ? queues.sends : queues.receives).push_back(mine);
      return work;
    }
    (sending ? receive : send) = waiting.front();
    waiting.pop_front();
    (sending ? send : receive) = mine;
  }
  // Matched: copy outside the lock, so that the other ranks' messages move at the same time.
  std::string error;
  std::shared_ptr<Completion> completion;
  if (send.bytes != receive.bytes) {
    error = "rank " + std::to_string(send.owner) + " sends " + std::to_string(send.bytes) + " bytes to rank " +
            std::to_string(receive.owner) + " on channel " + std::to_string(channel) + ", which receives " +
            std::to_string(receive.bytes);
  } else {
    try {
      completion = engine_.copy(send.owner, receive.owner, channel, receive.data, send.data, send.bytes);
    } catch (const std::exception& failure) {
      error = failure.what();
    }
  }
  for (const Side* side : {&send, &receive}) {
    side->work->completion = completion;
    side->work->error = error;
    side->work->started.store(true, std::memory_order_release);
    announce(side->owner);
  }
  if (!error.empty()) throw TransportError(error);
  return work;
}

void InProcessFabric::announce(Rank rank) {
  News& news = *news_[static_cast<std::size_t>(rank)];
  {
    std::lock_guard lock(news.mutex);
    ++news.counter;
  }
  news.changed.notify_all();
}

std::uint64_t InProcessFabric::newsOf(Rank rank) {
  News& news = *news_[static_cast<std::size_t>(rank)];
  std::lock_guard lock(news.mutex);
  return news.counter;
}

void InProcessFabric::waitForNews(Rank rank, std::uint64_t seen, std::chrono::steady_clock::time_point until) {
  News& news = *news_[static_cast<std::size_t>(rank)];
  std::unique_lock lock(news.mutex);
  news.changed.wait_until(lock, until, [&] { return news.counter != seen; });
}

}  // namespace ddl
