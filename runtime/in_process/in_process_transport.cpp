#include "runtime/in_process/in_process_transport.hpp"

#include <cstdio>
#include <cstdlib>

#include "runtime/in_flight.hpp"
#include "runtime/in_process/rank_threads.hpp"

namespace ddl {

RequestId InProcessTransport::track(std::shared_ptr<PostedWork> work) {
  inFlight_.emplace_back(next_, std::move(work));
  return next_++;
}

RequestId InProcessTransport::postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) {
  return track(fabric_.post(rank_, peer, channel, true, const_cast<void*>(data), bytes));
}

RequestId InProcessTransport::postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) {
  return track(fabric_.post(rank_, peer, channel, false, data, bytes));
}

RequestId InProcessTransport::postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) {
  auto work = std::make_shared<PostedWork>();
  work->completion = engine_.reduce(rank_, into, local, from, count, type, op);
  work->started.store(true, std::memory_order_relaxed);
  return track(std::move(work));
}

void InProcessTransport::waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) {
  if (inFlight_.empty()) throw TransportError("waiting with nothing in flight");
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (true) {
    const std::uint64_t seen = fabric_.newsOf(rank_);
    bool polling = false;  // some started work can only be seen finishing by looking again
    const std::size_t before = finished.size();
    takeFinished(
        inFlight_,
        [&](const std::shared_ptr<PostedWork>& work) {
          if (!work->started.load(std::memory_order_acquire)) return false;
          if (!work->error.empty()) throw TransportError(work->error);
          const bool done = !work->completion || work->completion->done();
          polling = polling || !done;
          return done;
        },
        finished);
    if (finished.size() > before) return;
    const auto now = std::chrono::steady_clock::now();
    if (now > deadline)
      throw TransportError(std::to_string(inFlight_.size()) + " messages still waiting for their peers");
    fabric_.waitForNews(rank_, seen, polling ? std::min(deadline, now + engine_.pollInterval()) : deadline);
  }
}

void InProcessTransport::abortJob(const std::string& message) { endProcessForRank(rank_, message); }

}  // namespace ddl
