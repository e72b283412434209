#include "runtime/tcp/tcp_mesh.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>

#include "common/invalid_argument.hpp"
#include "runtime/transport.hpp"

namespace ddl::tcp {
namespace {

// Words on the wire are in this machine's byte order: the ranks of one job run one build on one kind of
// machine, and the magic number tells a foreign byte order (or a stranger) from a rank.
constexpr std::uint32_t kHelloMagic = 0x64646c31;  // "ddl1": a rank to rank 0
constexpr std::uint32_t kLinkMagic = 0x64646c32;   // "ddl2": a rank to a lower rank, after the table
// How long a connection that is not a rank may hold the wait for its first words.
constexpr std::chrono::seconds kStrangerPatience{2};

struct Hello {
  std::uint32_t magic, size, rank, port;
};
struct Link {
  std::uint32_t magic, rank;
  std::uint64_t token;
};
struct TableEntry {
  std::uint32_t address, port;
};

std::string rankName(Rank rank) { return "rank " + std::to_string(rank); }

// Reads a connection's first words; nothing (and the connection dropped) if it is not one of this job's.
template <class Greeting>
std::optional<Greeting> greetingOf(const Socket& socket, std::uint32_t magic, Clock::time_point deadline) {
  Greeting greeting{};
  try {
    readExactly(socket.get(), &greeting, sizeof greeting, std::min(deadline, Clock::now() + kStrangerPatience), "a new connection");
  } catch (const TransportError&) {
    return std::nullopt;
  }
  if (greeting.magic != magic) return std::nullopt;
  return greeting;
}

void sendVerdict(const Socket& socket, const std::string& refusal, const std::vector<TableEntry>& table, std::uint64_t token,
                 Clock::time_point deadline, const std::string& whom) {
  const std::uint32_t length = static_cast<std::uint32_t>(refusal.size());
  writeExactly(socket.get(), &length, sizeof length, deadline, whom);
  if (!refusal.empty()) {
    writeExactly(socket.get(), refusal.data(), refusal.size(), deadline, whom);
    return;
  }
  writeExactly(socket.get(), &token, sizeof token, deadline, whom);
  writeExactly(socket.get(), table.data(), table.size() * sizeof(TableEntry), deadline, whom);
}

// Rank 0: the other ranks' connections, in rank order, and the table and token they were sent.
std::vector<Socket> gatherAtRoot(int size, Listener& listener, Clock::time_point deadline) {
  std::vector<Socket> links(static_cast<std::size_t>(size));
  std::vector<TableEntry> table(static_cast<std::size_t>(size), TableEntry{0, 0});
  std::vector<std::pair<Socket, Hello>> arrived;
  std::string refusal;
  for (int missing = size - 1; missing > 0;) {
    Socket socket = listener.accept(deadline, std::to_string(missing) + " of the job's " + std::to_string(size) + " ranks");
    const std::optional<Hello> hello = greetingOf<Hello>(socket, kHelloMagic, deadline);
    if (!hello) continue;
    const std::string from = " (from " + peerEndpoint(socket.get()).text() + ")";
    const auto rank = static_cast<Rank>(hello->rank);
    if (refusal.empty() && static_cast<int>(hello->size) != size)
      refusal = "size: " + rankName(rank) + from + " says the job has " + std::to_string(hello->size) + " ranks; rank 0 says " +
                std::to_string(size);
    else if (refusal.empty() && (rank < 1 || rank >= size))
      refusal = "rank: " + std::to_string(hello->rank) + from + " is not a rank of a job of " + std::to_string(size) + " (0.." +
                std::to_string(size - 1) + ")";
    else if (refusal.empty() && links[static_cast<std::size_t>(rank)].valid())
      refusal = "rank: two ranks say they are " + rankName(rank) + " (from " + peerEndpoint(links[static_cast<std::size_t>(rank)].get()).text() +
                " and " + peerEndpoint(socket.get()).text() + ")";
    if (refusal.empty()) {
      table[static_cast<std::size_t>(rank)] = {peerEndpoint(socket.get()).address, hello->port};
      links[static_cast<std::size_t>(rank)] = std::move(socket);
    } else {
      arrived.emplace_back(std::move(socket), *hello);  // answered with the refusal below
    }
    --missing;
  }
  std::random_device entropy;
  const std::uint64_t token = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
  for (Rank r = 1; r < size; ++r)
    if (links[static_cast<std::size_t>(r)].valid()) sendVerdict(links[static_cast<std::size_t>(r)], refusal, table, token, deadline, rankName(r));
  for (auto& [socket, hello] : arrived) sendVerdict(socket, refusal, table, token, deadline, rankName(static_cast<Rank>(hello.rank)));
  if (!refusal.empty()) {
    const std::size_t colon = refusal.find(": ");
    throw InvalidArgument(refusal.substr(0, colon), refusal.substr(colon + 2));
  }
  return links;
}

// Any other rank: its connection to rank 0, and from it the table and the job's token.
std::vector<Socket> joinAtRoot(Rank rank, int size, const Endpoint& root, std::uint16_t port, Clock::time_point deadline,
                               std::vector<TableEntry>& table, std::uint64_t& token) {
  std::vector<Socket> links(static_cast<std::size_t>(size));
  Socket socket = connectTo(root, deadline, "rank 0");
  const Hello hello{kHelloMagic, static_cast<std::uint32_t>(size), static_cast<std::uint32_t>(rank), port};
  writeExactly(socket.get(), &hello, sizeof hello, deadline, "rank 0");
  std::uint32_t length = 0;
  readExactly(socket.get(), &length, sizeof length, deadline, "rank 0 (waiting for every rank to join)");
  if (length > 0) {
    std::string refusal(std::min<std::uint32_t>(length, 4096), '\0');
    readExactly(socket.get(), refusal.data(), refusal.size(), deadline, "rank 0");
    const std::size_t colon = refusal.find(": ");
    if (colon == std::string::npos) throw TransportError("rank 0 refused the job: " + refusal);
    throw InvalidArgument(refusal.substr(0, colon), refusal.substr(colon + 2));
  }
  readExactly(socket.get(), &token, sizeof token, deadline, "rank 0");
  table.resize(static_cast<std::size_t>(size));
  readExactly(socket.get(), table.data(), table.size() * sizeof(TableEntry), deadline, "rank 0");
  links[0] = std::move(socket);
  return links;
}

}  // namespace

std::vector<Socket> connectMesh(Rank rank, int size, const Endpoint& root, Clock::time_point deadline, Listener* rootListener) {
  if (size < 1) throw InvalidArgument("size", std::to_string(size) + " ranks: a job has at least one");
  if (rank < 0 || rank >= size) throw InvalidArgument("rank", std::to_string(rank) + " is not one of 0.." + std::to_string(size - 1));
  std::vector<Socket> links;
  if (rank == 0) {
    std::optional<Listener> own;
    if (!rootListener) own.emplace(root);
    links = gatherAtRoot(size, rootListener ? *rootListener : *own, deadline);
  } else {
    Listener listener(Endpoint{0, 0});  // every interface: the address rank 0 saw this rank come from is one of them
    std::vector<TableEntry> table;
    std::uint64_t token = 0;
    links = joinAtRoot(rank, size, root, listener.port(), deadline, table, token);
    for (Rank lower = 1; lower < rank; ++lower) {
      const TableEntry& entry = table[static_cast<std::size_t>(lower)];
      Socket socket = connectTo(Endpoint{entry.address, static_cast<std::uint16_t>(entry.port)}, deadline, rankName(lower));
      const Link link{kLinkMagic, static_cast<std::uint32_t>(rank), token};
      writeExactly(socket.get(), &link, sizeof link, deadline, rankName(lower));
      links[static_cast<std::size_t>(lower)] = std::move(socket);
    }
    for (int missing = size - 1 - rank; missing > 0;) {
      Socket socket = listener.accept(deadline, std::to_string(missing) + " ranks above " + rankName(rank));
      const std::optional<Link> link = greetingOf<Link>(socket, kLinkMagic, deadline);
      if (!link || link->token != token || static_cast<Rank>(link->rank) <= rank || static_cast<int>(link->rank) >= size ||
          links[link->rank].valid())
        continue;  // not one of this job's ranks above this one
      links[link->rank] = std::move(socket);
      --missing;
    }
  }
  for (Socket& link : links)
    if (link.valid()) prepareForMessages(link.get());
  return links;
}

}  // namespace ddl::tcp
