#include "algorithms/io/msccl_xml_check.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "algorithms/io/msccl_chunk_ranges.hpp"
#include "algorithms/io/msccl_xml_reader.hpp"

namespace ddl {
namespace {

// The most (GPU, chunk range) sums one check holds, 768 MB with their last writers: a larger document is
// refused as too large to check rather than exhausting the machine.
constexpr std::int64_t kMostSums = std::int64_t{1} << 26;

// GPU `gpu`'s contribution to chunk range `range`: splitmix64 of the pair, so that no sum of other
// contributions is likely to equal it.
std::uint64_t contribution(std::uint64_t gpu, std::uint64_t range) {
  std::uint64_t z = (gpu << 32 | range) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

bool receives(const MscclStep& step) { return step.type() == MscclStepType::Receive || step.type() == MscclStepType::ReceiveReduce; }

// The messages one threadblock sent that are not received yet, in order, with their ranges' sums as they
// were when sent. Received ones are dropped as they pile up, so memory follows what is in flight.
struct Connection {
  struct Message {
    std::int32_t step;    // the send, a global step index
    std::int32_t ranges;  // how many of `sums` it carries
  };
  std::vector<Message> messages;
  std::vector<std::uint64_t> sums;
  std::size_t received = 0, sumsReceived = 0;

  bool empty() const { return received == messages.size(); }
  void clear() { messages.clear(), sums.clear(), received = sumsReceived = 0; }
  const std::uint64_t* receive() {
    if (received > 1024 && 2 * received > messages.size()) {
      messages.erase(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(received));
      sums.erase(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(sumsReceived));
      received = sumsReceived = 0;
    }
    sumsReceived += static_cast<std::size_t>(messages[received++].ranges);
    return sums.data() + sumsReceived - messages[received - 1].ranges;
  }
};

enum class SendOrder { Early, Late };

class SymbolicRun {
 public:
  explicit SymbolicRun(const MscclDocument& document) : document_(document), ranges_(document) {
    if (ranges_.count() * static_cast<std::int64_t>(document.gpus.size()) > kMostSums)
      throw MscclXmlFault(std::to_string(document.gpus.size()) + " gpus of " + std::to_string(ranges_.count()) +
                          " chunk ranges each are too many to check");
    for (std::size_t g = 0; g < document.gpus.size(); ++g)
      for (int t = 0; t < document.gpus[g].threadblockCount; ++t) gpuOf_.push_back(static_cast<int>(g));
    connect();
  }

  // Runs every step, each send as early or as late as it can run; throws MscclXmlFault.
  void run(SendOrder order) {
    reset();
    for (int tb = 0; tb < threadblockCount(); ++tb) consider(tb);
    std::vector<int>& preferred = order == SendOrder::Early ? readySends_ : readyOthers_;
    std::vector<int>& rest = order == SendOrder::Early ? readyOthers_ : readySends_;
    while (!preferred.empty() || !rest.empty()) {
      std::vector<int>& queue = preferred.empty() ? rest : preferred;
      const int tb = queue.back();
      queue.pop_back();
      execute(tb);
      consider(tb);
    }
    if (ranCount_ < document_.steps.size()) failDeadlock();
    for (int tb = 0; tb < threadblockCount(); ++tb)
      if (!outbox_[tb].empty())
        fail(outbox_[tb].messages[outbox_[tb].received].step, "sends to gpu " + std::to_string(threadblock(tb).sendPeer) +
                                                                  " on channel " + std::to_string(threadblock(tb).channel) +
                                                                  " a message no step receives");
    checkSums(order);
  }

 private:
  int threadblockCount() const { return static_cast<int>(document_.threadblocks.size()); }
  const MscclThreadblock& threadblock(int tb) const { return document_.threadblocks[static_cast<std::size_t>(tb)]; }
  std::int32_t nextStep(int tb) const { return threadblock(tb).firstStep + position_[tb]; }
  const MscclStep& step(std::int32_t index) const { return document_.steps[static_cast<std::size_t>(index)]; }
  std::uint64_t* sums(int tb) { return &sums_[static_cast<std::size_t>(gpuOf_[tb] * ranges_.count())]; }
  [[noreturn]] void fail(std::int32_t step, const std::string& what) const {
    throw MscclXmlFault(mscclStepName(document_, step) + " " + what);
  }

  // Pairs each receiving threadblock with the one sending to it: (from, to, channel) names one of each.
  void connect() {
    std::map<std::tuple<int, int, int>, int> sending, receiving;  // (from, to, channel) -> threadblock
    for (int tb = 0; tb < threadblockCount(); ++tb) {
      const MscclThreadblock& b = threadblock(tb);
      const int gpu = gpuOf_[tb], first = document_.gpus[static_cast<std::size_t>(gpu)].firstThreadblock;
      for (auto [peer, ends, verb] : {std::tuple(b.sendPeer, &sending, "send to"), std::tuple(b.receivePeer, &receiving, "receive from")}) {
        if (peer < 0) continue;
        auto [it, inserted] = ends->emplace(ends == &sending ? std::tuple(gpu, peer, b.channel) : std::tuple(peer, gpu, b.channel), tb);
        if (!inserted)
          throw MscclXmlFault("gpu " + std::to_string(gpu) + " tb " + std::to_string(it->second - first) + " and tb " +
                              std::to_string(tb - first) + " both " + verb + " gpu " + std::to_string(peer) + " on channel " +
                              std::to_string(b.channel));
      }
    }
    sender_.assign(document_.threadblocks.size(), -1);
    receiver_.assign(document_.threadblocks.size(), -1);
    for (auto [key, tb] : receiving)
      if (auto it = sending.find(key); it != sending.end()) sender_[tb] = it->second, receiver_[it->second] = tb;
  }

  void reset() {
    const std::size_t count = document_.threadblocks.size();
    position_.assign(count, 0);
    awaitsMessage_.assign(count, false);
    outbox_.resize(count);
    for (Connection& connection : outbox_) connection.clear();
    waiters_.assign(count, {});
    ran_.assign(document_.steps.size(), false);
    ranCount_ = 0;
    sums_.resize(static_cast<std::size_t>(ranges_.count()) * document_.gpus.size());
    for (std::size_t i = 0; i < sums_.size(); ++i)
      sums_[i] = contribution(i / static_cast<std::size_t>(ranges_.count()), i % static_cast<std::size_t>(ranges_.count()));
    lastWriter_.assign(sums_.size(), -1);
  }

  // Queues `tb` if its next step can run, else files it with what it waits for, which wakes it.
  void consider(int tb) {
    if (position_[tb] == threadblock(tb).stepCount) return;
    const MscclStep& next = step(nextStep(tb));
    if (next.dependency >= 0 && !ran_[static_cast<std::size_t>(next.dependency)])
      return waiters_[mscclThreadblockOf(document_, next.dependency)].push_back({next.dependency, tb});
    if (receives(next) && (sender_[tb] < 0 || outbox_[sender_[tb]].empty())) {
      awaitsMessage_[tb] = true;
      return;
    }
    (next.type() == MscclStepType::Send ? readySends_ : readyOthers_).push_back(tb);
  }

  void execute(int tb) {
    const std::int32_t index = nextStep(tb);
    const MscclStep& current = step(index);
    std::uint64_t* sums = this->sums(tb);
    if (current.type() == MscclStepType::Send) {
      const std::int64_t first = ranges_.at(current.offset), end = ranges_.at(current.offset + current.count);
      outbox_[tb].messages.push_back({index, static_cast<std::int32_t>(end - first)});
      outbox_[tb].sums.insert(outbox_[tb].sums.end(), sums + first, sums + end);
      if (const int receiver = receiver_[tb]; receiver >= 0 && awaitsMessage_[receiver]) {
        awaitsMessage_[receiver] = false;
        consider(receiver);
      }
    } else if (receives(current)) {
      Connection& connection = outbox_[sender_[tb]];
      const MscclStep& sent = step(connection.messages[connection.received].step);
      if (sent.count != current.count)
        fail(index, "receives cnt=" + std::to_string(current.count) + " where its matching send, " +
                        mscclStepName(document_, connection.messages[connection.received].step) + ", has cnt=" + std::to_string(sent.count));
      requireSameCuts(index, sent.offset, current.offset, current.count);
      const bool reduces = current.type() == MscclStepType::ReceiveReduce;
      const std::uint64_t* message = connection.receive();
      const std::int64_t to = ranges_.at(current.offset);
      for (std::int64_t i = 0; i < ranges_.at(current.offset + current.count) - to; ++i) {
        sums[to + i] = message[i] + (reduces ? sums[to + i] : 0);
        lastWriter_[static_cast<std::size_t>(gpuOf_[tb] * ranges_.count() + to + i)] = index;
      }
    }
    ++ranCount_;
    ran_[static_cast<std::size_t>(index)] = true;
    // Wake the threadblocks that waited for this step (taken out first: waking files new waits).
    woken_.clear();
    std::erase_if(waiters_[tb], [&](const auto& waiter) { return waiter.first == index && (woken_.push_back(waiter.second), true); });
    ++position_[tb];
    for (int waiter : woken_) consider(waiter);
  }

  // Chunks that land elsewhere than they came from are followed range by range, so both places must be cut
  // alike; the writer never moves chunks, and the checker refuses a move it cannot follow.
  void requireSameCuts(std::int32_t step, std::int32_t from, std::int32_t to, std::int32_t count) const {
    if (from == to) return;
    for (std::int64_t i = ranges_.at(from), j = ranges_.at(to);; ++i, ++j) {
      if (ranges_.cut(i) - from != ranges_.cut(j) - to)
        fail(step, "moves chunks " + std::to_string(from) + ".. to " + std::to_string(to) + ".., which other steps cut differently");
      if (ranges_.cut(i) - from == count) return;
    }
  }

  // Every threadblock of a cycle of waits is stuck; the one named is, first, a receive no threadblock sends
  // to, then a step waiting for another step (a cycle through messages alone needs one), then the first.
  [[noreturn]] void failDeadlock() const {
    int named = -1;
    for (int tb = 0, rank = 0; tb < threadblockCount(); ++tb) {
      if (position_[tb] == threadblock(tb).stepCount) continue;
      const int tbRank = awaitsMessage_[tb] ? (sender_[tb] < 0 ? 3 : 1) : 2;
      if (tbRank > rank) named = tb, rank = tbRank;
    }
    const MscclThreadblock& stuck = threadblock(named);
    const std::string waited = awaitsMessage_[named] ? "a message from gpu " + std::to_string(stuck.receivePeer) + " on channel " +
                                                           std::to_string(stuck.channel) + (sender_[named] < 0 ? ", which no tb sends" : "")
                                                     : mscclStepName(document_, step(nextStep(named)).dependency);
    fail(nextStep(named), "deadlocks: " + std::to_string(ranCount_) + " of " + std::to_string(document_.steps.size()) +
                              " steps ran, then none could; it waits for " + waited);
  }

  void checkSums(SendOrder order) const {
    const auto ranges = static_cast<std::size_t>(ranges_.count());
    std::vector<std::uint64_t> expected(ranges, 0);
    for (std::size_t i = 0; i < sums_.size(); ++i) expected[i % ranges] += contribution(i / ranges, i % ranges);
    for (std::size_t i = 0; i < sums_.size(); ++i) {
      if (sums_[i] == expected[i % ranges]) continue;
      const std::int32_t writer = lastWriter_[i], first = ranges_.cut(static_cast<std::int64_t>(i % ranges));
      const std::int32_t last = ranges_.cut(static_cast<std::int64_t>(i % ranges) + 1) - 1;
      throw MscclXmlFault("gpu " + std::to_string(i / ranges) + (first == last ? " chunk " : " chunks " + std::to_string(first) + " to ") +
                          std::to_string(last) + " ends without exactly one contribution of every gpu (sends run as " +
                          (order == SendOrder::Early ? "early" : "late") + " as they can; " +
                          (writer < 0 ? std::string("never written") : "last written by " + mscclStepName(document_, writer)) + ")");
    }
  }

  const MscclDocument& document_;
  const ChunkRanges ranges_;
  std::vector<int> gpuOf_;                // per threadblock
  std::vector<int> sender_, receiver_;    // per threadblock: the one it receives from, sends to, or -1
  std::vector<std::int32_t> position_;    // per threadblock: its next step
  std::vector<bool> awaitsMessage_;       // per threadblock: its next step waits for a message
  std::vector<Connection> outbox_;        // per threadblock: its messages in flight
  std::vector<std::vector<std::pair<std::int32_t, int>>> waiters_;  // per threadblock: (its step, waiting threadblock)
  std::vector<int> readySends_, readyOthers_, woken_;
  std::vector<std::uint64_t> sums_;       // per (gpu, range)
  std::vector<std::int32_t> lastWriter_;  // per (gpu, range): the step that last wrote it, or -1
  std::vector<bool> ran_;                 // per step
  std::size_t ranCount_ = 0;
};

}  // namespace

void checkMscclDocument(const MscclDocument& document) {
  SymbolicRun run(document);
  run.run(SendOrder::Early);
  run.run(SendOrder::Late);
}

std::optional<std::string> mscclXmlFault(std::string_view xml) {
  try {
    MscclXmlReader reader;
    reader.read(xml);
    checkMscclDocument(reader.finish());
    return std::nullopt;
  } catch (const MscclXmlFault& fault) {
    return fault.what();
  }
}

}  // namespace ddl
