#pragma once
// What a ddl_comm of the C API (include/ddlscale/ddlscale.h) is: a transport of its own (MPI point-to-point
// on a duplicate of the caller's communicator, TCP connections of a job without MPI, or NCCL for GPU memory
// with MPI beside it), the algorithm chosen for each collective, and the executor that runs their programs
// over that transport. Collectives are checked and their programs built in the caller's thread, so that a
// bad argument is the caller's error before anything runs; they run in the order issued, on the
// communicator's own thread where the transport may be driven from one (MPI_THREAD_MULTIPLE, or TCP),
// otherwise in the caller's. What the communicator needs of the ranks together (agreeing on a choice, a
// barrier) it does with messages of its own, on a channel above any schedule's, so any transport serves.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/collectives/algorithm_choice.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "algorithms/schedule/schedule.hpp"
#include "runtime/call_agreement.hpp"
#include "runtime/program_runner.hpp"
#include "runtime/transport.hpp"

namespace ddl {

// One issued collective's outcome, which its request waits for (not runtime/completion.hpp's GPU work).
class CollectiveOutcome {
 public:
  void finish(int result, std::string message);
  void wait();
  bool done();
  int result() const { return result_; }  // once done
  const std::string& message() const { return message_; }

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  int result_ = 0;
  std::string message_;
};

// How one collective is chosen: an algorithm with its options, a tuning table per size, or a schedule file.
struct CollectiveChoice {
  AlgorithmChoice fixed;
  std::shared_ptr<const TuningTable> tuning;
  std::shared_ptr<const Schedule> schedule;
};

class Communicator {
 public:
  // How long a wait may pass with nothing arriving, until ddl_comm_set_timeout says otherwise.
  static constexpr std::chrono::milliseconds kDefaultTimeout{30'000};

  // Over `transport`'s ranks; `threaded`: collectives may run on a thread of the communicator's own.
  // `control`, where given, carries the communicator's own messages (agreements, barriers) on host memory,
  // for a `transport` that moves device memory; it has the same ranks.
  Communicator(std::unique_ptr<Transport> transport, bool threaded, std::unique_ptr<Transport> control = nullptr);
  // Waits for what is in flight, then frees the transport.
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // InvalidArgument naming the argument for anything out of range. The three choices are collective: every
  // rank takes the choice, or (where one refused, or they differ) every rank refuses it.
  void setTimeout(double seconds);
  void setAlgorithm(CollectiveKind kind, const std::string& name, const std::string& options);
  void setTuning(CollectiveKind kind, const std::string& path);
  void setSchedule(CollectiveKind kind, const std::string& path);
  // "ddl 4x16x4": what runs a `kind` collective of `bytes` now.
  std::string describe(CollectiveKind kind, double bytes) const;

  // Each checks its arguments here (InvalidArgument), then runs in order; the completion says when.
  std::shared_ptr<CollectiveOutcome> allreduce(const void* send, void* recv, Elements count, DataType type, Reduction reduction);
  // Rank r's `recv` (`recvCount` elements) ends with block r of the reduction over the ranks of their `send`
  // (size x recvCount elements).
  std::shared_ptr<CollectiveOutcome> reduceScatter(const void* send, void* recv, Elements recvCount, DataType type,
                                                   Reduction reduction);
  std::shared_ptr<CollectiveOutcome> allGather(const void* send, void* recv, Elements count, DataType type);
  std::shared_ptr<CollectiveOutcome> broadcast(void* buffer, Elements count, DataType type, Rank root);
  std::shared_ptr<CollectiveOutcome> barrier();

  // Point-to-point, in order with the collectives: `count` elements to or from `peer`, matched with the
  // peer's receive or send of the same tag in the order each side issued them. A send completes once its
  // bytes are sent (above the transport's eager limit, once the receive is posted), so two ranks that each
  // send a large message to the other before receiving wait for each other until the timeout, as MPI_Send's
  // unsafe programs do. Tags: 0 .. kPointToPointTags - 1.
  static constexpr int kPointToPointTags = 1024;
  std::shared_ptr<CollectiveOutcome> send(const void* buffer, Elements count, DataType type, Rank peer, int tag);
  std::shared_ptr<CollectiveOutcome> receive(void* buffer, Elements count, DataType type, Rank peer, int tag);
  // A receive of the next message of `tag` from whichever rank sends one first (MPI_ANY_SOURCE); its sender
  // goes to `*source` before the outcome completes (`source` must live until then).
  std::shared_ptr<CollectiveOutcome> receiveFromAny(void* buffer, Elements count, DataType type, int tag, Rank* source);
  // Every rank sends sendCounts[r] elements at sendOffsets[r] of `send` to rank r, and receives recvCounts[r]
  // elements from rank r at recvOffsets[r] of `recv` (MPI_Alltoallv): every message posted at once.
  struct Blocks {
    std::vector<Elements> counts, offsets;
  };
  std::shared_ptr<CollectiveOutcome> allToAll(const void* send, const Blocks& sent, void* recv, const Blocks& received,
                                              DataType type);

 private:
  // This rank's program of the `kind` collective of `count` elements of `type`, as chosen now: built once
  // per shape and choice, and kept (building a ring's program costs more than a small allreduce).
  void agreeOnChoice(CollectiveKind kind, const std::function<CollectiveChoice()>& make);
  CollectiveChoice algorithmChoice(CollectiveKind kind, const std::string& name, const std::string& options) const;
  std::shared_ptr<const Program> programFor(CollectiveKind kind, Elements count, DataType type);
  // Runs `call` after everything issued before it (on the worker, or here), and on the GPU after the
  // caller's work queued on the default stream (Transport::orderAfterCallersWork).
  std::shared_ptr<CollectiveOutcome> issue(std::function<void()> call);
  void workLoop();
  // Before a run of `program`, on every rank alike: its channels (at least `atLeast`) reserved, and this
  // rank connected to its peers on them (Transport::connectPeers).
  void reserveChannelsFor(const Program& program, int atLeast = 0);
  // Rank `root` sends block r of `buffer` to rank r and waits until every block is where it goes.
  void scatterBlocks(char* buffer, Elements count, DataType type, Rank root);
  // The lowest and the highest of every rank's `value`, gathered at rank 0 and sent back: in the
  // communicator's order (on the worker, if any). A rank silent past the timeout ends the job with a
  // message that starts with `what`.
  std::pair<std::uint64_t, std::uint64_t> lowestAndHighest(std::uint64_t value, const std::string& what);
  std::pair<std::uint64_t, std::uint64_t> runLowestAndHighest(std::uint64_t value, const std::string& what);  // in order
  // The shape of the next collective call, counted.
  CallShape nextCall(CallKind kind, Elements count, DataType type, Rank root = -1, int reduction = -1) {
    return {kind, static_cast<std::int32_t>(type), count, root, reduction, ++calls_};
  }
  // The bytes of a send or receive whose arguments are all valid (InvalidArgument naming the first that is not).
  // kAnyPeer: a receive from any rank, whose peer is not checked.
  static constexpr Rank kAnyPeer = -1;
  std::size_t checkedPointToPoint(const void* buffer, Elements count, DataType type, Rank peer, int tag) const;
  // `count` elements of `type` as one message of at most 2 GiB (an MPI message's limit), named `field`.
  static std::size_t messageBytes(Elements count, DataType type, const char* field);
  // Checks `reduction` is one of the five, and that an average divides nothing it cannot.
  static Reduction checkedReduction(Reduction reduction);
  // The scratch of a reduce-scatter's whole buffer, in the transport's memory, kept for the next call.
  void* reduceScatterScratch(std::size_t bytes);
  // Whether the ranks check their agreement on every collective, or on broadcasts only (whose one call
  // at a job's start costs nothing to check): DDLSCALE_CHECK_AGREEMENT=1, read when the communicator is
  // made, on every rank alike.
  static bool checksEveryCall();
  // In order, before any data moves: every rank's `mine` gathered at rank 0 and compared, and the verdict
  // sent back, so that every rank throws InvalidArgument naming rank 0's call and the first one that
  // differs, or none does. The communicator stays usable.
  void agreeOnCall(const CallShape& mine);
  // Waits for every one of `requests` on `transport`, or ends the job at the timeout with a message naming `what`.
  void waitForAll(Transport& transport, std::vector<RequestId> requests, const std::string& what);
  Transport& control() { return control_ ? *control_ : *transport_; }
  // `bytes` from `from` to `to` in the transport's memory, before a collective that works in place.
  void copyIn(void* to, const void* from, std::size_t bytes);
  // Throws InvalidArgument where send and recv partly overlap on a GPU, which copyIn cannot copy.
  void refuseOverlapOnGpu() const;

  int rank_ = 0;
  int size_ = 1;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Transport> control_;
  std::unique_ptr<ProgramRunner> runner_;  // used by the worker (or the caller without one) only
  std::chrono::milliseconds timeout_ = kDefaultTimeout;
  const bool checkEveryCall_ = checksEveryCall();
  std::uint64_t calls_ = 0;  // collectives issued, barriers among them
  void* scratch_ = nullptr;  // reduceScatterScratch's, used by the worker only
  std::size_t scratchBytes_ = 0;
  std::map<CollectiveKind, CollectiveChoice> choices_;
  // By collective, elements, element bytes and the chosen configuration's label.
  std::map<std::tuple<CollectiveKind, Elements, int, std::string>, std::shared_ptr<const Program>> programs_;

  bool threaded_ = false;
  std::mutex queueMutex_;
  std::condition_variable queued_;
  std::deque<std::pair<std::function<void()>, std::shared_ptr<CollectiveOutcome>>> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace ddl
