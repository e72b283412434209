#pragma once
// The Transport over TCP connections, one to each peer (tcp_mesh.hpp): for a job that has no MPI, started
// by a framework's own launcher (torchrun, Slurm) with a rank, a size and rank 0's address.
//
// Each message goes as a header (channel, bytes) in the order posted to that peer; the receiver matches it
// to the oldest receive posted for that peer and channel, which keeps the schedule's order per channel as
// MPI's tags do. Up to the eager limit the bytes follow the header at once, and a message that arrives
// before its receive is posted is kept until it is (MPI's unexpected messages). Above it, the header asks,
// and the bytes go only once the receiver has matched a receive and cleared them (MPI's rendezvous): a rank
// that runs ahead then cannot push its next exchange onto a link its partner still uses for this one, which
// halves pairwise exchanges (runtime/emulated_cluster/README.md, "Eager or rendezvous"). Either way a rank
// always drains its connections, so two ranks sending each other at once never block each other's TCP
// windows. A send is complete once the kernel has all of its bytes. Progress happens in the calls (no thread of its
// own): waitSome writes and reads what the sockets take without blocking, then sleeps in poll() until one
// is ready or the deadline passes, so ranks that share a core leave it to whoever has work.
//
// A peer that closes its connection while something to or from it is pending fails the wait, naming it;
// one that closes with nothing pending has simply finished. A failure gives the transport up (abandon):
// it closes every connection, so its peers' waits on it fail and they give theirs up in turn, and no call
// touches memory after it, so the process survives and its caller hears of it (libddlscale's DDL_ABORTED),
// as NCCL's ncclCommAbort leaves a process alive. abortJob, for ddlrun, ends this process the same way.

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "runtime/tcp/tcp_socket.hpp"
#include "runtime/transport.hpp"

namespace ddl {

class TcpTransport final : public Transport {
 public:
  // Open MPI's TCP eager limit: larger messages wait for their receive.
  static constexpr std::size_t kDefaultEagerLimit = 64 * 1024;

  // `links[peer]`: the connection to each peer (tcp::connectMesh), none at this rank. Messages of up to
  // `eagerLimit` bytes go at once; larger ones wait until the receiver clears them.
  TcpTransport(Rank rank, std::vector<tcp::Socket> links, std::size_t eagerLimit = kDefaultEagerLimit);

  Rank rank() const override { return rank_; }
  int size() const override { return static_cast<int>(peers_.size()); }
  RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) override;
  RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) override;
  RequestId postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) override;
  void waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) override;
  Rank waitForSender(Channel channel, std::size_t bytes, std::chrono::milliseconds patience) override;
  [[noreturn]] void abortJob(const std::string& message) override;
  bool abandonable() const override { return true; }
  void abandon(const std::string& why) override;

 private:
  // Throws TransportAbandoned where the transport was given up: before anything touches a socket or memory.
  void refuseIfAbandoned() const;
  // What a frame on the wire is: a message with its bytes, a request to send one, the receiver's clearance
  // of the oldest request on that channel, or the bytes of a cleared message.
  enum class Frame : std::uint32_t { Eager = 0, Request = 1, Clear = 2, Payload = 3 };
  struct Header {
    std::uint32_t channel;
    Frame frame;
    std::uint64_t bytes;  // the message's, whether or not they follow
  };
  struct Outgoing {
    Header header;
    const char* data;
    std::size_t payload;  // bytes of `data` that follow the header: 0 for a request or a clearance
    std::size_t written;  // of sizeof(Header) + payload
    RequestId id;         // the send it completes; -1 for a request or a clearance
  };
  // A message above the eager limit, asked for and waiting for its clearance.
  struct Held {
    const char* data;
    std::size_t bytes;
    RequestId id;
  };
  struct Receive {
    char* data;
    std::size_t bytes;
    RequestId id;
  };
  // A message that came before its receive: its bytes so far, and whether all have come; or a request.
  struct Early {
    std::vector<char> bytes;
    bool complete = false;
    bool requested = false;  // a request for `requestedBytes`, whose bytes come once cleared
    std::size_t requestedBytes = 0;
  };
  // The message being read from a peer: into a posted receive, or into an Early one.
  struct Incoming {
    Header header{};
    std::size_t headerRead = 0;
    char* into = nullptr;
    std::size_t read = 0;
    RequestId id = -1;        // the receive it completes; -1 while it goes into `early`
    Early* early = nullptr;
  };
  struct Peer {
    tcp::Socket socket;
    std::deque<Outgoing> outgoing;
    std::map<Channel, std::deque<Receive>> receives;  // posted, nothing matched yet
    std::map<Channel, std::deque<Receive>> cleared;   // matched to a request and cleared: the bytes come in this order
    std::map<Channel, std::deque<Early>> early;
    std::map<Channel, std::deque<Held>> held;         // sends asked for, not yet cleared
    Incoming incoming;
    bool closed = false;  // it closed its side, with nothing pending
  };

  Peer& checkedPeer(Rank peer, const char* what);
  bool pendingWith(const Peer& peer) const;
  // What the sockets take and give now, without blocking; finished requests go to finished_.
  void progress();
  void write(Rank rank, Peer& peer);
  void read(Rank rank, Peer& peer);
  // The header just read: where its bytes go, or what it asks.
  void startMessage(Rank rank, Peer& peer);
  // Matches `receive` to a request for `bytes`: clears it, and the bytes will come into it.
  void clear(Rank rank, Peer& peer, Channel channel, const Receive& receive, std::size_t bytes);
  void queue(Rank rank, Peer& peer, Outgoing frame);
  void finishMessage(Peer& peer);
  // The peer closed its connection (or reset it): an error if something is pending with it.
  void lost(Rank rank, Peer& peer, const std::string& how);
  void sleepUntilReady(std::chrono::steady_clock::time_point deadline);
  std::string describePending() const;

  Rank rank_;
  std::size_t eagerLimit_;
  std::vector<Peer> peers_;
  RequestId next_ = 0;
  Rank nextSender_ = 0;  // waitForSender's last answer: it looks at the peers after it first
  std::vector<RequestId> finished_;
  std::size_t pending_ = 0;  // sends and receives posted and not finished
  std::string abandoned_;    // why the transport was given up; empty while it works
};

}  // namespace ddl
