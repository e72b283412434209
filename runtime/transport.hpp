#pragma once
// How the runtime moves bytes: post a send or a receive of a byte range to or from a peer, post a
// reduction, and wait until some of what was posted has finished. The MPI transport works on host memory;
// the GPU transports (NCCL, CUDA peer) implement the same interface on device memory, so the executor
// that runs a schedule is written once.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/schedule/step.hpp"
#include "runtime/data_type.hpp"
#include "runtime/host_reduce.hpp"
#include "runtime/reduce_op.hpp"

namespace ddl {

using RequestId = std::int64_t;

// A peer did not answer in time, or the transport failed: the job cannot go on.
class TransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A transport given up after a failure (Transport::abandon): it will never touch memory again, and every
// later post or wait throws this, naming the first failure.
class TransportAbandoned : public TransportError {
 public:
  using TransportError::TransportError;
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual Rank rank() const = 0;
  virtual int size() const = 0;

  // Messages between two ranks on one channel are matched in the order they are posted; the schedule
  // keeps at most one message per channel in flight between two ranks in each direction. Each post returns
  // the id after the previous post's (sends, receives and reductions alike), so that a runner can keep
  // what it posted in an array instead of a map.
  virtual RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) = 0;
  virtual RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) = 0;
  // into[i] = local[i] op from[i] (a sum, product, minimum or maximum): in place where `local` is `into`, and out of place (a step that reads
  // the collective's input and writes its output) otherwise; `local` is `into` or overlaps neither it nor
  // `from`. May finish at once (host) or later (a GPU stream).
  virtual RequestId postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) = 0;

  // A send or receive that a runner posts again on every run of a program it keeps prepared: the same
  // peer, channel, memory and size, one at a time. A transport may set it up once and only start it on
  // later runs (MPI's persistent requests: setting up the four requests of a 2-rank 4 KiB allreduce was
  // about 15% of its time, analysis/results/2026-12-04-runtime-eager-pieces). The runner keeps one
  // RepeatedPost per post and passes it each time; the transport fills it in and checks it still
  // describes the post, so a post whose memory moved is set up anew. Posts never repeated: postSend.
  struct RepeatedPost {
    int slot = -1;  // the transport's; -1: nothing set up
  };
  virtual RequestId postRepeatedSend(Rank peer, Channel channel, const void* data, std::size_t bytes, RepeatedPost& repeated) {
    (void)repeated;
    return postSend(peer, channel, data, bytes);
  }
  virtual RequestId postRepeatedReceive(Rank peer, Channel channel, void* data, std::size_t bytes, RepeatedPost& repeated) {
    (void)repeated;
    return postReceive(peer, channel, data, bytes);
  }
  // The runner will not post `repeated` again (none of them is in flight): what the transport set up for
  // it can go, and it reads as nothing set up.
  virtual void forgetRepeatedPost(RepeatedPost& repeated) { repeated = {}; }

  // The largest message this transport sends to `peer` without a handshake with its receiver, where a
  // handshake costs more than cutting a step into messages of that size (0: nowhere). A runner cuts a step
  // of a few times this size into messages of at most this size (ProgramRunner). Both ends of a pair give
  // the same answer, once reserveChannels has run: their messages are matched one by one.
  virtual std::size_t eagerBytes(Rank peer) const {
    (void)peer;
    return 0;
  }

  // Blocks until a message on `channel` has come from some peer (or been asked to be sent, above the eager
  // limit) that no posted receive takes, and returns that peer: a receive posted next from it on `channel`
  // takes that message. A receive from any source is this, then that receive (MPI_Probe, then MPI_Recv); it
  // holds where no other receive on `channel` is posted meanwhile, as libddlscale's in-order calls ensure.
  // Throws TransportError where the message found is not `bytes` long (naming both sizes: nothing is
  // truncated), after `patience`, or where the transport has no message headers to look at (NCCL).
  virtual Rank waitForSender(Channel channel, std::size_t bytes, std::chrono::milliseconds patience) {
    (void)channel;
    (void)bytes;
    (void)patience;
    throw TransportError("this transport cannot receive from any source");
  }

  // Blocks until at least one posted request has finished and appends the ids of those that have to
  // `finished`. Throws TransportError if none finishes within `patience` of the call. The caller keeps
  // `finished` from wait to wait and a transport reads the clock only once a wait lasts: a 4 KiB allreduce
  // waits three times, and a vector and a clock read per wait were a measurable part of it
  // (analysis/results/2026-12-04-runtime-waits).
  virtual void waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) = 0;

  // Ends the whole job at once with `message` and a non-zero status: what a rank does when a peer
  // never answers, so that no rank waits forever.
  [[noreturn]] virtual void abortJob(const std::string& message) = 0;

  // Whether a failure can leave this transport given up with its process alive, instead of ending the job:
  // where, once abandon() returns, nothing posted can write into memory any more (no thread but the
  // caller's makes progress, so receives posted into a caller's buffer stay unwritten). Then abandon()
  // closes what connects it to its peers (which see it gone and fail their own waits), and every later
  // post or wait throws TransportAbandoned naming `why`. MPI cannot (a request in flight cannot be
  // withdrawn from MPI safely): it ends the job.
  virtual bool abandonable() const { return false; }
  virtual void abandon(const std::string& why) { abortJob(why); }
  // abortJob(what), or, where the transport can be abandoned, abandon(what) and throw TransportAbandoned:
  // what a caller does once a wait has failed with memory of its own still posted.
  [[noreturn]] void fail(const std::string& what) {
    if (!abandonable()) abortJob(what);
    abandon(what);
    throw TransportAbandoned(what);
  }

  // Every rank calls this together before running programs whose steps use channels 0 .. channels-1.
  // Transports whose channels need resources of their own create them here (NCCL has no message tags:
  // it gets one communicator per channel); most need nothing.
  virtual void reserveChannels(int channels) { (void)channels; }

  // Every rank calls this together after reserveChannels, before running programs, with the peers its own
  // programs exchange messages with on each channel (peers[c], for channel c): the relation is symmetric
  // (a send has its receive), so every pair names each other. Transports that connect a pair at its first
  // message and block until the peer connects too connect them here, channel by channel in the same order
  // on every rank (NCCL does so inside ncclGroupEnd: issued a channel at a time, a schedule whose channels
  // wait on each other crosswise would deadlock on its first run). Pairs connected before are skipped; most
  // transports need nothing.
  using ChannelPeers = std::vector<std::vector<Rank>>;
  virtual void connectPeers(const ChannelPeers& peers) { (void)peers; }

  // A library call's first step, in the thread that runs it: what follows on this transport's streams waits
  // for the work the caller had queued on the GPU's default stream (which itself waits for every blocking
  // stream), so that a message sent from the caller's buffer carries what the caller's kernels wrote. Work on
  // the caller's non-blocking streams it cannot see: the caller synchronises those (ddlscale.h). Nothing on
  // host memory.
  virtual void orderAfterCallersWork() {}

  // Called in a thread other than the one that made this transport, before that thread drives it: the GPU
  // transports make their device current there (CUDA's current device is a thread's own).
  virtual void adoptThread() {}

  // The memory this transport moves data in: host memory, or this rank's GPU. Buffers and receive
  // staging are allocated here; upload and download move bytes between it and the host.
  virtual bool memoryIsHost() const { return true; }
  virtual void* allocate(std::size_t bytes) { return ::operator new(bytes); }
  virtual void deallocate(void* memory) { ::operator delete(memory); }
  virtual void upload(void* to, const void* from, std::size_t bytes) { std::memcpy(to, from, bytes); }
  virtual void download(void* to, const void* from, std::size_t bytes) { std::memcpy(to, from, bytes); }
  // A copy within this transport's memory, finished when it returns: what a run out of place copies from
  // input to output before its first step (OutOfPlacePlan::copiedFirst).
  virtual void copy(void* to, const void* from, std::size_t bytes) { std::memcpy(to, from, bytes); }
  // data[i] /= divisor in this transport's memory, finished when it returns: an average's last step.
  virtual void divide(void* data, std::size_t count, DataType type, int divisor) { divideElements(data, count, type, divisor); }
  // What this rank's memory is, for the "# Rank ... on HOST device ..." lines, as nccl-tests writes a device
  // there ("0 [0000:04:00] NVIDIA H100"): "-1 [host] host memory" where it is no GPU's.
  virtual std::string deviceDescription() const { return "-1 [host] host memory"; }
};

// One wait of `transport`, its ids in a vector of their own: for waits off the hot path (agreements
// between ranks, tests).
inline std::vector<RequestId> waitSomeWithin(Transport& transport, std::chrono::milliseconds patience) {
  std::vector<RequestId> finished;
  transport.waitSome(patience, finished);
  return finished;
}

// Waits until every one of `requests` has finished, each wait within `patience` (TransportError past it):
// off the hot path too (agreements, their barriers).
inline void waitForAllWithin(Transport& transport, const std::vector<RequestId>& requests, std::chrono::milliseconds patience) {
  std::set<RequestId> pending(requests.begin(), requests.end());
  while (!pending.empty())
    for (const RequestId id : waitSomeWithin(transport, patience)) pending.erase(id);
}

}  // namespace ddl
