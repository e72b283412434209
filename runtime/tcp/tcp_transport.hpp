#pragma once
// The Transport over TCP connections, one to each peer (tcp_mesh.hpp): for a job that has no MPI, started
// by a framework's own launcher (torchrun, Slurm) with a rank, a size and rank 0's address.
//
// Each message goes as a header (channel, bytes) and its bytes, in the order posted to that peer; the
// receiver matches it to the oldest receive posted for that peer and channel, which keeps the schedule's
// order per channel as MPI's tags do. A message that arrives before its receive is posted is kept until it
// is (MPI's unexpected messages), so reading never waits on the schedule: a rank always drains its
// connections, and two ranks that send to each other at once cannot block each other's TCP windows. A
// send is complete once the kernel has all of its bytes. Progress happens in the calls (no thread of its
// own): waitSome writes and reads what the sockets take without blocking, then sleeps in poll() until one
// is ready or the deadline passes, so ranks that share a core leave it to whoever has work.
//
// A peer that closes its connection while something to or from it is pending fails the wait, naming it;
// one that closes with nothing pending has simply finished. abortJob ends this process; its peers see its
// connections close and end theirs, so a failed rank ends the whole job, as MPI_Abort does.

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "runtime/tcp/tcp_socket.hpp"
#include "runtime/transport.hpp"

namespace ddl {

class TcpTransport final : public Transport {
 public:
  // `links[peer]`: the connection to each peer (tcp::connectMesh), none at this rank.
  TcpTransport(Rank rank, std::vector<tcp::Socket> links);

  Rank rank() const override { return rank_; }
  int size() const override { return static_cast<int>(peers_.size()); }
  RequestId postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) override;
  RequestId postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) override;
  RequestId postReduce(void* into, const void* from, std::size_t count, DataType type) override;
  std::vector<RequestId> waitSome(std::chrono::steady_clock::time_point deadline) override;
  [[noreturn]] void abortJob(const std::string& message) override;

 private:
  // What goes on the wire before a message's bytes.
  struct Header {
    std::uint32_t channel;
    std::uint32_t reserved;
    std::uint64_t bytes;
  };
  struct Outgoing {
    Header header;
    const char* data;
    std::size_t written;  // of sizeof(Header) + header.bytes
    RequestId id;
  };
  struct Receive {
    char* data;
    std::size_t bytes;
    RequestId id;
  };
  // A message that came before its receive: its bytes so far, and whether all have come.
  struct Early {
    std::vector<char> bytes;
    bool complete = false;
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
    std::map<Channel, std::deque<Receive>> receives;
    std::map<Channel, std::deque<Early>> early;
    Incoming incoming;
    bool closed = false;  // it closed its side, with nothing pending
  };

  Peer& checkedPeer(Rank peer, const char* what);
  bool pendingWith(const Peer& peer) const;
  // What the sockets take and give now, without blocking; finished requests go to finished_.
  void progress();
  void write(Rank rank, Peer& peer);
  void read(Rank rank, Peer& peer);
  // The header just read: where its bytes go.
  void startMessage(Rank rank, Peer& peer);
  void finishMessage(Peer& peer);
  // The peer closed its connection (or reset it): an error if something is pending with it.
  void lost(Rank rank, Peer& peer, const std::string& how);
  void sleepUntilReady(std::chrono::steady_clock::time_point deadline);
  std::string describePending() const;

  Rank rank_;
  std::vector<Peer> peers_;
  RequestId next_ = 0;
  std::vector<RequestId> finished_;
  std::size_t pending_ = 0;  // sends and receives posted and not finished
};

}  // namespace ddl
