#include "runtime/tcp/tcp_transport.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "runtime/host_reduce.hpp"
#include "runtime/pending_messages.hpp"

namespace ddl {
namespace {

std::string rankName(Rank rank) { return "rank " + std::to_string(rank); }

// Two sides of one message that disagree on its size: the receiving rank `self` fails its wait.
TransportError sizeMismatch(Rank sender, Rank self, Channel channel, std::size_t sent, std::size_t received) {
  return TransportError(rankName(sender) + " sent " + std::to_string(sent) + " bytes on channel " + std::to_string(channel) +
                        " where " + rankName(self) + " receives " + std::to_string(received));
}

bool wouldBlock(int error) { return error == EAGAIN || error == EWOULDBLOCK; }
bool connectionLost(int error) { return error == EPIPE || error == ECONNRESET || error == ETIMEDOUT; }

// One read or write moves at most this much: sockets take a few MiB at a time anyway, and the other
// peers' connections get their turn in between.
constexpr std::size_t kMostPerCall = std::size_t{1} << 26;

}  // namespace

TcpTransport::TcpTransport(Rank rank, std::vector<tcp::Socket> links, std::size_t eagerLimit)
    : rank_(rank), eagerLimit_(eagerLimit), peers_(links.size()) {
  for (std::size_t r = 0; r < links.size(); ++r) peers_[r].socket = std::move(links[r]);
}

void TcpTransport::refuseIfAbandoned() const {
  if (!abandoned_.empty()) throw TransportAbandoned("the communicator was given up after a failure: " + abandoned_);
}

void TcpTransport::abandon(const std::string& why) {
  if (abandoned_.empty()) abandoned_ = why;
  // Closing every connection is how the peers learn of it: each fails its next wait on this rank.
  for (Peer& peer : peers_) peer.socket.close();
}

TcpTransport::Peer& TcpTransport::checkedPeer(Rank peer, const char* what) {
  refuseIfAbandoned();
  if (peer < 0 || peer >= size() || peer == rank_)
    throw TransportError(std::string(what) + " to or from " + rankName(peer) + ", which is not a peer of " + rankName(rank_) +
                         " in a job of " + std::to_string(size()));
  return peers_[static_cast<std::size_t>(peer)];
}

void TcpTransport::queue(Rank rank, Peer& peer, Outgoing frame) {
  peer.outgoing.push_back(frame);
  // A frame goes out at once where the socket takes it: a small one never waits for the next waitSome.
  if (peer.outgoing.size() == 1) write(rank, peer);
}

RequestId TcpTransport::postSend(Rank peer, Channel channel, const void* data, std::size_t bytes) {
  Peer& to = checkedPeer(peer, "a send");
  if (to.closed) throw TransportError("a send to " + rankName(peer) + ", which has closed its connection (it ended or failed)");
  const RequestId id = next_++;
  ++pending_;
  const auto* bytesOf = static_cast<const char*>(data);
  if (bytes <= eagerLimit_) {
    queue(peer, to, Outgoing{Header{static_cast<std::uint32_t>(channel), Frame::Eager, bytes}, bytesOf, bytes, 0, id});
  } else {
    to.held[channel].push_back(Held{bytesOf, bytes, id});
    queue(peer, to, Outgoing{Header{static_cast<std::uint32_t>(channel), Frame::Request, bytes}, nullptr, 0, 0, -1});
  }
  return id;
}

void TcpTransport::clear(Rank rank, Peer& peer, Channel channel, const Receive& receive, std::size_t bytes) {
  if (receive.bytes != bytes) throw sizeMismatch(rank, rank_, channel, bytes, receive.bytes);
  peer.cleared[channel].push_back(receive);
  queue(rank, peer, Outgoing{Header{static_cast<std::uint32_t>(channel), Frame::Clear, bytes}, nullptr, 0, 0, -1});
}

RequestId TcpTransport::postReceive(Rank peer, Channel channel, void* data, std::size_t bytes) {
  Peer& from = checkedPeer(peer, "a receive");
  const RequestId id = next_++;
  auto early = from.early.find(channel);
  if (early == from.early.end() || early->second.empty()) {
    if (from.closed)
      throw TransportError("a receive from " + rankName(peer) + ", which has closed its connection (it ended or failed)");
    from.receives[channel].push_back(Receive{static_cast<char*>(data), bytes, id});
    ++pending_;
    return id;
  }
  Early& message = early->second.front();
  if (message.requested) {
    const std::size_t requested = message.requestedBytes;
    early->second.pop_front();
    clear(peer, from, channel, Receive{static_cast<char*>(data), bytes, id}, requested);
    ++pending_;
    return id;
  }
  if (message.bytes.size() != bytes) throw sizeMismatch(peer, rank_, channel, message.bytes.size(), bytes);
  if (message.complete) {
    if (bytes > 0) std::memcpy(data, message.bytes.data(), bytes);  // a null buffer may stand for none
    finished_.push_back(id);
  } else {
    if (from.incoming.early != &message) throw TransportError("internal: an incomplete early message that is not being read");
    // The message being read now (only the newest can be incomplete): its bytes so far move to the
    // receive, and the rest is read straight into it.
    Incoming& incoming = from.incoming;
    if (incoming.read > 0) std::memcpy(data, message.bytes.data(), incoming.read);
    incoming.into = static_cast<char*>(data);
    incoming.id = id;
    incoming.early = nullptr;
    ++pending_;
  }
  early->second.pop_front();
  return id;
}

RequestId TcpTransport::postReduce(void* into, const void* local, const void* from, std::size_t count, DataType type, ReduceOp op) {
  reduceInto(into, local, from, count, type, op);
  finished_.push_back(next_);
  return next_++;
}

namespace {

template <class Queues>
bool anyQueued(const Queues& queues) {
  return std::any_of(queues.begin(), queues.end(), [](const auto& channel) { return !channel.second.empty(); });
}

}  // namespace

bool TcpTransport::pendingWith(const Peer& peer) const {
  return !peer.outgoing.empty() || peer.incoming.headerRead > 0 || anyQueued(peer.receives) || anyQueued(peer.cleared) ||
         anyQueued(peer.held);
}

void TcpTransport::lost(Rank rank, Peer& peer, const std::string& how) {
  if (pendingWith(peer))
    throw TransportError(rankName(rank) + " " + how + " while " + rankName(rank_) + " had messages pending with it: it ended or failed");
  peer.closed = true;
  peer.socket.close();
}

void TcpTransport::write(Rank rank, Peer& peer) {
  while (!peer.outgoing.empty()) {
    Outgoing& message = peer.outgoing.front();
    const std::size_t total = sizeof(Header) + message.payload;
    iovec pieces[2];
    int count = 0;
    if (message.written < sizeof(Header))
      pieces[count++] = {reinterpret_cast<char*>(&message.header) + message.written, sizeof(Header) - message.written};
    const std::size_t dataWritten = message.written > sizeof(Header) ? message.written - sizeof(Header) : 0;
    if (dataWritten < message.payload)
      pieces[count++] = {const_cast<char*>(message.data) + dataWritten, std::min(message.payload - dataWritten, kMostPerCall)};
    msghdr header{};
    header.msg_iov = pieces;
    header.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t sent = ::sendmsg(peer.socket.get(), &header, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (wouldBlock(errno)) return;
      if (connectionLost(errno)) return lost(rank, peer, "reset its connection");
      throw TransportError("writing to " + rankName(rank) + ": " + std::strerror(errno));
    }
    message.written += static_cast<std::size_t>(sent);
    if (message.written < total) continue;
    if (message.id >= 0) {
      finished_.push_back(message.id);
      --pending_;
    }
    peer.outgoing.pop_front();
  }
}

void TcpTransport::startMessage(Rank rank, Peer& peer) {
  Incoming& incoming = peer.incoming;
  const Channel channel = static_cast<Channel>(incoming.header.channel);
  const std::size_t bytes = incoming.header.bytes;
  auto oldest = [](std::map<Channel, std::deque<Receive>>& queues, Channel key) -> std::deque<Receive>* {
    auto found = queues.find(key);
    return found == queues.end() || found->second.empty() ? nullptr : &found->second;
  };
  switch (incoming.header.frame) {
    case Frame::Eager:
      if (std::deque<Receive>* posted = oldest(peer.receives, channel)) {
        const Receive receive = posted->front();
        if (receive.bytes != bytes) throw sizeMismatch(rank, rank_, channel, bytes, receive.bytes);
        posted->pop_front();
        incoming.into = receive.data;
        incoming.id = receive.id;
      } else {
        Early& early = peer.early[channel].emplace_back();  // a deque: earlier ones stay where they are
        early.bytes.resize(bytes);
        incoming.into = early.bytes.data();
        incoming.early = &early;
      }
      return;
    case Frame::Request:
      if (std::deque<Receive>* posted = oldest(peer.receives, channel)) {
        const Receive receive = posted->front();
        posted->pop_front();
        clear(rank, peer, channel, receive, bytes);
      } else {
        Early& early = peer.early[channel].emplace_back();
        early.requested = true;
        early.requestedBytes = bytes;
      }
      incoming = Incoming{};  // nothing follows a request
      return;
    case Frame::Clear: {
      auto held = peer.held.find(channel);
      if (held == peer.held.end() || held->second.empty() || held->second.front().bytes != bytes)
        throw TransportError(rankName(rank) + " cleared a message of " + std::to_string(bytes) + " bytes on channel " +
                             std::to_string(channel) + " that " + rankName(rank_) + " never asked to send");
      const Held message = held->second.front();
      held->second.pop_front();
      incoming = Incoming{};  // nothing follows a clearance
      queue(rank, peer, Outgoing{Header{static_cast<std::uint32_t>(channel), Frame::Payload, bytes}, message.data, bytes, 0, message.id});
      return;
    }
    case Frame::Payload:
      if (std::deque<Receive>* cleared = oldest(peer.cleared, channel)) {
        incoming.into = cleared->front().data;
        incoming.id = cleared->front().id;
        cleared->pop_front();
        return;
      }
      throw TransportError(rankName(rank) + " sent the bytes of a message on channel " + std::to_string(channel) + " that " +
                           rankName(rank_) + " never cleared");
  }
  throw TransportError(rankName(rank) + " sent a frame of unknown kind " + std::to_string(static_cast<std::uint32_t>(incoming.header.frame)) +
                       ": not a ddlscale rank of this build");
}

void TcpTransport::finishMessage(Peer& peer) {
  Incoming& incoming = peer.incoming;
  if (incoming.id >= 0) {
    finished_.push_back(incoming.id);
    --pending_;
  } else {
    incoming.early->complete = true;
  }
  incoming = Incoming{};
}

void TcpTransport::read(Rank rank, Peer& peer) {
  for (;;) {
    Incoming& incoming = peer.incoming;
    const bool inHeader = incoming.headerRead < sizeof(Header);
    char* into = inHeader ? reinterpret_cast<char*>(&incoming.header) + incoming.headerRead : incoming.into + incoming.read;
    const std::size_t wanted = inHeader ? sizeof(Header) - incoming.headerRead : std::min(incoming.header.bytes - incoming.read, kMostPerCall);
    const ssize_t got = ::recv(peer.socket.get(), into, wanted, MSG_DONTWAIT);
    if (got == 0) return lost(rank, peer, "closed its connection");
    if (got < 0) {
      if (errno == EINTR) continue;
      if (wouldBlock(errno)) return;
      if (connectionLost(errno)) return lost(rank, peer, "reset its connection");
      throw TransportError("reading from " + rankName(rank) + ": " + std::strerror(errno));
    }
    if (inHeader) {
      incoming.headerRead += static_cast<std::size_t>(got);
      if (incoming.headerRead < sizeof(Header)) continue;
      startMessage(rank, peer);
      if (peer.incoming.headerRead == 0) continue;  // a request or a clearance: no bytes follow
    } else {
      incoming.read += static_cast<std::size_t>(got);
    }
    if (incoming.read == incoming.header.bytes) finishMessage(peer);
  }
}

void TcpTransport::progress() {
  for (Rank r = 0; r < size(); ++r) {
    Peer& peer = peers_[static_cast<std::size_t>(r)];
    if (!peer.socket.valid()) continue;  // this rank, or a peer that has finished
    write(r, peer);
    if (peer.socket.valid()) read(r, peer);
  }
}

void TcpTransport::sleepUntilReady(std::chrono::steady_clock::time_point deadline) {
  std::vector<pollfd> watched;
  for (const Peer& peer : peers_)
    if (peer.socket.valid())
      watched.push_back(pollfd{peer.socket.get(), static_cast<short>(POLLIN | (peer.outgoing.empty() ? 0 : POLLOUT)), 0});
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left < 0) throw TransportError(describePending());
    // At least 1 ms: poll(0) would spin through the last millisecond.
    const int ready = ::poll(watched.data(), watched.size(), static_cast<int>(std::clamp<long long>(left, 1, 1000)));
    if (ready > 0) return;
    if (ready < 0 && errno != EINTR) throw TransportError(std::string("poll: ") + std::strerror(errno));
  }
}

void TcpTransport::waitSome(std::chrono::milliseconds patience, std::vector<RequestId>& finished) {
  refuseIfAbandoned();
  progress();
  if (finished_.empty()) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    do {
      if (pending_ == 0) throw TransportError("waiting with nothing in flight");
      sleepUntilReady(deadline);
      progress();
    } while (finished_.empty());
  }
  finished.insert(finished.end(), finished_.begin(), finished_.end());
  finished_.clear();
}

Rank TcpTransport::waitForSender(Channel channel, std::size_t bytes, std::chrono::milliseconds patience) {
  refuseIfAbandoned();
  const auto deadline = std::chrono::steady_clock::now() + patience;
  // Peers in turn from the one after the last found, so that one busy sender cannot starve the others.
  for (;;) {
    progress();
    for (int k = 1; k <= size(); ++k) {
      const Rank r = (nextSender_ + k) % size();
      const Peer& peer = peers_[static_cast<std::size_t>(r)];
      // A message on `channel` that no receive took is kept as an early one (or its request is).
      auto early = peer.early.find(channel);
      if (early != peer.early.end() && !early->second.empty()) {
        const Early& message = early->second.front();
        const std::size_t sent = message.requested ? message.requestedBytes : message.bytes.size();
        if (sent != bytes) throw sizeMismatch(r, rank_, channel, sent, bytes);
        nextSender_ = r;
        return r;
      }
    }
    if (std::none_of(peers_.begin(), peers_.end(), [](const Peer& peer) { return peer.socket.valid(); }))
      throw TransportError("a receive from any rank, but every peer has closed its connection (they ended or failed)");
    try {
      sleepUntilReady(deadline);
    } catch (const TransportError&) {
      if (std::chrono::steady_clock::now() < deadline) throw;
      throw TransportError("a receive from any rank on channel " + std::to_string(channel) + ": no rank sent one in time");
    }
  }
}

std::string TcpTransport::describePending() const {
  std::set<Rank> sendingTo, receivingFrom;
  for (Rank r = 0; r < size(); ++r) {
    const Peer& peer = peers_[static_cast<std::size_t>(r)];
    if (!peer.outgoing.empty() || anyQueued(peer.held)) sendingTo.insert(r);
    if (peer.incoming.id >= 0 || anyQueued(peer.receives) || anyQueued(peer.cleared)) receivingFrom.insert(r);
  }
  return describePendingMessages(pending_, sendingTo, receivingFrom);
}

void TcpTransport::abortJob(const std::string& message) {
  std::fprintf(stderr, "ddlscale: rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  // Closing every connection is how the peers learn of it: each fails its next wait on this rank and
  // ends in turn, so the whole job ends, as MPI_Abort ends an MPI job.
  for (Peer& peer : peers_) peer.socket.close();
  std::_Exit(3);
}

}  // namespace ddl
