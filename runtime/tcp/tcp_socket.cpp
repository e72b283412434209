#include "runtime/tcp/tcp_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "common/invalid_argument.hpp"
#include "runtime/transport.hpp"

namespace ddl::tcp {
namespace {

std::string systemError(const std::string& what) { return what + ": " + std::strerror(errno); }

int millisecondsUntil(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000));
}

// Waits until `socket` is ready for `events`; false at the deadline.
bool waitFor(int socket, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd entry{socket, events, 0};
    const int ready = ::poll(&entry, 1, millisecondsUntil(deadline));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) throw TransportError(systemError("poll"));
    if (Clock::now() >= deadline) return false;
  }
}

}  // namespace

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    descriptor_ = other.release();
  }
  return *this;
}

Socket::~Socket() { close(); }

int Socket::release() { return std::exchange(descriptor_, -1); }

void Socket::close() {
  if (descriptor_ >= 0) ::close(descriptor_);
  descriptor_ = -1;
}

sockaddr_in Endpoint::socketAddress() const {
  sockaddr_in result{};
  result.sin_family = AF_INET;
  result.sin_addr.s_addr = address;
  result.sin_port = htons(port);
  return result;
}

std::string Endpoint::text() const {
  char dotted[INET_ADDRSTRLEN] = {};
  in_addr in{address};
  ::inet_ntop(AF_INET, &in, dotted, sizeof dotted);
  return std::string(dotted) + ":" + std::to_string(port);
}

Endpoint parseEndpoint(const std::string& text, const std::string& field, bool portZeroAllowed) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw InvalidArgument(field, "'" + text + "' is not host:port (\"10.0.0.1:29500\")");
  const std::string host = text.substr(0, colon), portText = text.substr(colon + 1);
  if (portText.find_first_not_of("0123456789") != std::string::npos || portText.size() > 5)
    throw InvalidArgument(field, "'" + portText + "' in '" + text + "' is not a port number");
  const int port = std::stoi(portText);
  if (port > 65535 || (port == 0 && !portZeroAllowed))
    throw InvalidArgument(field, "port " + portText + " in '" + text + "' is not one of 1-65535");
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int failure = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); failure != 0 || !found)
    throw InvalidArgument(field, "host '" + host + "' in '" + text + "' does not resolve to an IPv4 address (" +
                                     ::gai_strerror(failure) + ")");
  Endpoint endpoint{reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr.s_addr, static_cast<std::uint16_t>(port)};
  ::freeaddrinfo(found);
  return endpoint;
}

Listener::Listener(const Endpoint& at) : socket_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (!socket_.valid()) throw TransportError(systemError("socket"));
  const int yes = 1;
  // A job started again at once finds its port free, not held by the last job's closing connections.
  ::setsockopt(socket_.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  const sockaddr_in address = at.socketAddress();
  if (::bind(socket_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    throw TransportError(systemError("cannot listen on " + at.text()));
  if (::listen(socket_.get(), SOMAXCONN) != 0) throw TransportError(systemError("listen on " + at.text()));
  port_ = localEndpoint(socket_.get()).port;
}

Socket Listener::accept(Clock::time_point deadline, const std::string& waitingFor) {
  for (;;) {
    if (!waitFor(socket_.get(), POLLIN, deadline)) throw TransportError("no connection from " + waitingFor + " in time");
    Socket accepted(::accept4(socket_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (accepted.valid()) return accepted;
    if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) throw TransportError(systemError("accept"));
  }
}

Socket connectTo(const Endpoint& to, Clock::time_point deadline, const std::string& whom) {
  auto pause = std::chrono::milliseconds(10);
  for (;;) {
    Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!socket.valid()) throw TransportError(systemError("socket"));
    const sockaddr_in address = to.socketAddress();
    if (::connect(socket.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return socket;
    const int failure = errno;
    // Refused: nobody listens yet. Anything else (no route, unreachable) may pass too, as the network comes up.
    if (Clock::now() + pause >= deadline)
      throw TransportError("cannot connect to " + whom + " at " + to.text() + ": " + std::strerror(failure));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

void readExactly(int socket, void* data, std::size_t bytes, Clock::time_point deadline, const std::string& whom) {
  auto* at = static_cast<char*>(data);
  while (bytes > 0) {
    if (!waitFor(socket, POLLIN, deadline)) throw TransportError(whom + " sent nothing in time");
    const ssize_t got = ::recv(socket, at, bytes, MSG_DONTWAIT);
    if (got == 0) throw TransportError(whom + " closed its connection");
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw TransportError(systemError("reading from " + whom));
    }
    at += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

void writeExactly(int socket, const void* data, std::size_t bytes, Clock::time_point deadline, const std::string& whom) {
  const auto* at = static_cast<const char*>(data);
  while (bytes > 0) {
    if (!waitFor(socket, POLLOUT, deadline)) throw TransportError(whom + " took nothing in time");
    const ssize_t sent = ::send(socket, at, bytes, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      throw TransportError(systemError("writing to " + whom));
    }
    at += sent;
    bytes -= static_cast<std::size_t>(sent);
  }
}

Endpoint localEndpoint(int socket) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (::getsockname(socket, reinterpret_cast<sockaddr*>(&address), &length) != 0) throw TransportError(systemError("getsockname"));
  return {address.sin_addr.s_addr, ntohs(address.sin_port)};
}

Endpoint peerEndpoint(int socket) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (::getpeername(socket, reinterpret_cast<sockaddr*>(&address), &length) != 0) throw TransportError(systemError("getpeername"));
  return {address.sin_addr.s_addr, ntohs(address.sin_port)};
}

void prepareForMessages(int socket) {
  const int yes = 1;
  if (::setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes) != 0) throw TransportError(systemError("TCP_NODELAY"));
  const int flags = ::fcntl(socket, F_GETFL);
  if (flags < 0 || ::fcntl(socket, F_SETFL, flags | O_NONBLOCK) != 0) throw TransportError(systemError("O_NONBLOCK"));
}

}  // namespace ddl::tcp
