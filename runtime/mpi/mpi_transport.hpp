#pragma once
// The Transport over MPI point-to-point on host memory: non-blocking sends and receives tagged by channel
// (the schedule keeps one message per channel in flight between two ranks, and MPI does not let messages
// of one sender and tag overtake each other), sums on the host, and waiting by polling MPI_Testsome, so
// that a peer that never answers is noticed at the deadline instead of blocking forever. With a
// SilenceWatchdog, abortJob asks every rank which of them is silent before it ends the job.

#include <mpi.h>

#include <memory>

#include "runtime/mpi/silence_watchdog.hpp"
#include "runtime/transport.hpp"

namespace ddl {

class MpiTransport final : public Transport {
 public:
  // MPI must be initialised; the transport does not own the communicator.
  explicit MpiTransport(MPI_Comm communicator, SilenceWatchdog* watchdog = nullptr);
  // A transport over a duplicate of `parent` that it owns and frees (collective over `parent`'s ranks):
  // a library's messages never meet its caller's. Where not every rank of `parent` arrives within
  // `patience`, it throws TransportError instead of waiting on (the duplicate still in progress is left
  // to MPI, which cannot cancel a collective); once all have, it finds which ranks share this rank's
  // memory, so that no collective of the transport waits without a deadline.
  static std::unique_ptr<MpiTransport> overDuplicateOf(MPI_Comm parent, std::chrono::milliseconds patience);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  MPI_Comm communicator() const { return communicator_; }
  Rank rank() const override { return rank_; }
  int size() const override { return size_; }
  RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) override;
  RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) override;
  RequestId postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) override;
  // Persistent requests (MPI_Send_init, MPI_Recv_init), started again on every repeat.
  RequestId postRepeatedSend(Rank peer, Channel channel, const void* data, std::size_t bytes, RepeatedPost& repeated) override;
  RequestId postRepeatedReceive(Rank peer, Channel channel, void* data, std::size_t bytes, RepeatedPost& repeated) override;
  void forgetRepeatedPost(RepeatedPost& repeated) override;
  void waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) override;
  Rank waitForSender(Channel channel, std::size_t bytes, std::chrono::milliseconds patience) override;
  [[noreturn]] void abortJob(const std::string& message) override;
  // Channels are MPI tags: they stay below the watchdog's. The first call also finds which ranks share
  // this one's memory (collectively), for eagerBytes; overDuplicateOf makes that call, to its deadline.
  void reserveChannels(int channels) override;
  // Open MPI's shared-memory eager limit, less its headers, for a rank on this machine
  // (runtime/mpi/eager_limit.hpp); 0 for the others, whose network transports keep their own protocol.
  std::size_t eagerBytes(Rank peer) const override;

 private:
  RequestId track(MPI_Request request, Rank peer, bool sending);
  struct Persistent;
  // What `repeated` names (a slot of this transport's, else std::logic_error).
  Persistent& keptFor(const RepeatedPost& repeated);
  // The persistent request `repeated` names, set up (again) where it describes another post.
  MPI_Request& persistentFor(bool sending, Rank peer, Channel channel, const void* data, std::size_t bytes,
                             RepeatedPost& repeated);
  int checkedCount(std::size_t bytes) const;
  // Appends what has completed to `finished`, without waiting; whether anything had.
  bool testSome(std::vector<RequestId>& finished);
  // The TransportError for the first of `count` finished requests whose status holds an error.
  [[noreturn]] void throwFailedMessage(int count) const;
  void pollFor(std::chrono::milliseconds patience, std::vector<RequestId>& finished);
  std::string describePending() const;

  MPI_Comm communicator_;
  bool ownsCommunicator_ = false;
  SilenceWatchdog* watchdog_;
  Rank rank_ = 0;
  int size_ = 1;
  RequestId next_ = 0;
  std::vector<MPI_Request> requests_;  // in flight, parallel to ids_
  std::vector<RequestId> ids_;
  std::vector<int> peers_;             // parallel to ids_: the peer, +1 for a send, -1 - peer for a receive
  std::vector<RequestId> finished_;    // host reductions, done when posted
  std::vector<int> indices_;
  std::vector<MPI_Status> statuses_;   // where errorsReturn_: Testsome's, to name a failed message
  bool errorsReturn_ = false;          // MPI_ERRORS_RETURN on the communicator (overDuplicateOf's)
  // A persistent request and the post it was set up for, by RepeatedPost::slot.
  struct Persistent {
    MPI_Request request = MPI_REQUEST_NULL;
    const void* data = nullptr;
    std::size_t bytes = 0;
    Rank peer = 0;
    Channel channel = 0;
    bool sending = false;
  };
  std::vector<Persistent> persistent_;
  std::vector<int> freeSlots_;  // of persistent_, their requests freed
  std::vector<std::size_t> eagerBytes_;  // per rank, from the first reserveChannels on
};

}  // namespace ddl
