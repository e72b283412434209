#pragma once
// TCP sockets for a job that has no MPI to start it: an owned descriptor, "host:port" addresses (IPv4),
// a listener, and the blocking reads, writes and connects of the rendezvous, each bounded by a deadline so
// that a rank that never comes ends the wait with a message instead of hanging it.

#include <netinet/in.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ddl::tcp {

using Clock = std::chrono::steady_clock;

// A socket descriptor, closed when it goes.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int descriptor) : descriptor_(descriptor) {}
  Socket(Socket&& other) noexcept : descriptor_(other.release()) {}
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  int get() const { return descriptor_; }
  bool valid() const { return descriptor_ >= 0; }
  int release();
  void close();

 private:
  int descriptor_ = -1;
};

// An IPv4 endpoint.
struct Endpoint {
  std::uint32_t address = 0;  // network byte order
  std::uint16_t port = 0;     // host byte order
  sockaddr_in socketAddress() const;
  std::string text() const;  // "10.0.0.1:29500"
};

// "host:port", the host a name or a dotted address, the port 1-65535 (0 too where `portZeroAllowed`).
// Throws InvalidArgument naming `field` when it is not one, or the name does not resolve.
Endpoint parseEndpoint(const std::string& text, const std::string& field, bool portZeroAllowed = false);

// Listens on `at` (port 0: one the system picks); port() says which.
class Listener {
 public:
  explicit Listener(const Endpoint& at);
  std::uint16_t port() const { return port_; }
  // The next connection, or TransportError at the deadline.
  Socket accept(Clock::time_point deadline, const std::string& waitingFor);

 private:
  Socket socket_;
  std::uint16_t port_ = 0;
};

// Connects to `to`, trying again while nobody listens there yet (the peer may start later), until the
// deadline: then TransportError naming `whom`.
Socket connectTo(const Endpoint& to, Clock::time_point deadline, const std::string& whom);

// Exactly `bytes`, or TransportError at the deadline or when the peer closes (naming `whom`).
void readExactly(int socket, void* data, std::size_t bytes, Clock::time_point deadline, const std::string& whom);
void writeExactly(int socket, const void* data, std::size_t bytes, Clock::time_point deadline, const std::string& whom);

// The address this side of a connected socket has, and the other side's.
Endpoint localEndpoint(int socket);
Endpoint peerEndpoint(int socket);

// Non-blocking, and no Nagle delay: a schedule's small messages go at once. (Writes pass MSG_NOSIGNAL: a
// closed peer is an error to report, not a SIGPIPE.)
void prepareForMessages(int socket);

}  // namespace ddl::tcp
