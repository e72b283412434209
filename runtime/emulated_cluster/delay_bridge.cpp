// A switch that adds latency: forwards Ethernet frames between its ports (raw sockets on the switch
// namespace's veth ends), holding each frame for a fixed delay first. The kernel here has no netem, so
// the emulated cluster's latency comes from this; its rate comes from tc tbf on the veths.
//
//   ddl_delay_bridge --delay-us 500 p0 p1 p2 p3
//
// Frames keep their order. A frame goes to the port that last sent from its destination MAC address,
// or to every other port while that is unknown or for broadcast. Stops cleanly on SIGTERM or SIGINT.
//
// Its cost bounds the cluster it can emulate (8 nodes at 200 Mbit/s kept one core busy), so it copies each
// frame once: the kernel does not hand it back its own sends (PACKET_IGNORE_OUTGOING, which halves the
// copies where the kernel has it), and frames wait in reused buffers rather than one allocation each.

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using Mac = std::array<unsigned char, 6>;

volatile std::sig_atomic_t stopping = 0;

struct Port {
  std::string name;
  int socket = -1;
  int index = 0;  // interface index
};

struct Held {
  Clock::time_point release;
  int from;
  std::unique_ptr<unsigned char[]> frame;  // kLargestFrame bytes, reused once the frame has been sent
  std::size_t bytes;
};

// Linux 4.20 and later; older headers lack the name.
constexpr int kPacketIgnoreOutgoing = 23;
constexpr std::size_t kLargestFrame = 1 << 16;

int openPort(const std::string& name, int& index) {
  const int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
  if (fd < 0) return -1;
  index = static_cast<int>(if_nametoindex(name.c_str()));
  if (index == 0) return -1;
  sockaddr_ll address{};
  address.sll_family = AF_PACKET;
  address.sll_protocol = htons(ETH_P_ALL);
  address.sll_ifindex = index;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return -1;
  packet_mreq membership{};
  membership.mr_ifindex = index;
  membership.mr_type = PACKET_MR_PROMISC;
  setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &membership, sizeof membership);
  const int buffer = 64 << 20;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
  const int ignore = 1;
  setsockopt(fd, SOL_PACKET, kPacketIgnoreOutgoing, &ignore, sizeof ignore);  // else filtered below
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  long delayUs = -1;
  std::vector<Port> ports;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    if (argument == "--delay-us" && i + 1 < argc) {
      char* end = nullptr;
      delayUs = std::strtol(argv[++i], &end, 10);
      if (end == argv[i] || *end != '\0') delayUs = -1;  // not a number: the usage below
    } else {
      ports.push_back({argument});
    }
  }
  if (delayUs < 0 || ports.size() < 2) {
    std::fprintf(stderr, "usage: %s --delay-us MICROSECONDS PORT PORT [PORT...]\n", argv[0]);
    return 2;
  }
  for (Port& port : ports) {
    port.socket = openPort(port.name, port.index);
    if (port.socket < 0) {
      std::fprintf(stderr, "ddl_delay_bridge: cannot open port %s: %s\n", port.name.c_str(), std::strerror(errno));
      return 1;
    }
  }
  // Wake when asked to: the default 50 us of timer slack would blur a half-millisecond delay.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  std::signal(SIGTERM, [](int) { stopping = 1; });
  std::signal(SIGINT, [](int) { stopping = 1; });

  const auto delay = std::chrono::microseconds(delayUs);
  std::map<Mac, int> portOf;  // learnt: which port a MAC address sent from
  std::deque<Held> held;
  std::vector<pollfd> polled;
  for (const Port& port : ports) polled.push_back({port.socket, POLLIN, 0});
  std::vector<std::unique_ptr<unsigned char[]>> spare;  // buffers of frames already sent

  while (!stopping) {
    // Sleep exactly until the next frame is due: poll's milliseconds would round a 0.5 ms delay to 1 ms.
    timespec timeout{0, 100'000'000};
    if (!held.empty()) {
      const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(held.front().release - Clock::now()).count();
      timeout = wait <= 0 ? timespec{0, 0} : timespec{static_cast<time_t>(wait / 1'000'000'000), static_cast<long>(wait % 1'000'000'000)};
    }
    if (ppoll(polled.data(), polled.size(), &timeout, nullptr) < 0 && errno != EINTR) break;
    for (std::size_t p = 0; p < ports.size(); ++p) {
      if (!(polled[p].revents & POLLIN)) continue;
      // Drain what arrived; a frame's delay starts when the bridge sees it.
      while (true) {
        std::unique_ptr<unsigned char[]> frame;
        if (spare.empty()) {
          frame = std::make_unique_for_overwrite<unsigned char[]>(kLargestFrame);
        } else {
          frame = std::move(spare.back());
          spare.pop_back();
        }
        sockaddr_ll from{};
        socklen_t length = sizeof from;
        const ssize_t bytes = recvfrom(ports[p].socket, frame.get(), kLargestFrame, MSG_DONTWAIT,
                                       reinterpret_cast<sockaddr*>(&from), &length);
        if (bytes <= 0 || from.sll_pkttype == PACKET_OUTGOING || bytes < 14) {  // nothing, our own sends, runts
          spare.push_back(std::move(frame));
          if (bytes <= 0) break;
          continue;
        }
        Mac source;
        std::memcpy(source.data(), frame.get() + 6, 6);
        portOf[source] = static_cast<int>(p);
        held.push_back({Clock::now() + delay, static_cast<int>(p), std::move(frame), static_cast<std::size_t>(bytes)});
      }
    }
    const auto now = Clock::now();
    while (!held.empty() && held.front().release <= now) {
      Held& next = held.front();
      Mac destination;
      std::memcpy(destination.data(), next.frame.get(), 6);
      const auto known = portOf.find(destination);
      for (std::size_t p = 0; p < ports.size(); ++p) {
        if (static_cast<int>(p) == next.from) continue;
        if (known != portOf.end() && known->second != static_cast<int>(p)) continue;
        // A full queue drops the frame, as a switch would; TCP recovers.
        send(ports[p].socket, next.frame.get(), next.bytes, MSG_DONTWAIT);
      }
      spare.push_back(std::move(next.frame));
      held.pop_front();
    }
  }
  return 0;
}
