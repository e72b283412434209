#include "runtime/pytorch/mpi_bootstrap.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ddl::torch_backend {
namespace {

bool startedByUs = false;

struct Ipv4 {
  std::uint32_t address = 0;  // host order
  int prefix = 32;
  bool loopback() const { return (address >> 24) == 127; }
};

Ipv4 parse(const std::string& text) {
  const auto slash = text.find('/');
  in_addr parsed{};
  if (inet_pton(AF_INET, text.substr(0, slash).c_str(), &parsed) != 1)
    throw std::runtime_error("ddlscale: '" + text + "' is not an IPv4 address");
  Ipv4 ip{ntohl(parsed.s_addr), 32};
  if (slash != std::string::npos) ip.prefix = std::clamp(std::stoi(text.substr(slash + 1)), 0, 32);
  return ip;
}

std::string withoutPrefix(const std::string& text) { return text.substr(0, text.find('/')); }

bool sameSubnet(const Ipv4& a, const Ipv4& b, int prefix) {
  const std::uint32_t mask = prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix);
  return (a.address & mask) == (b.address & mask);
}

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("ddlscale: ") + what + " failed");
}

}  // namespace

MpiWorld initialiseMpi() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (finalised) throw std::runtime_error("ddlscale: MPI was finalised already; the job cannot start a new group");
  int provided = MPI_THREAD_SINGLE;
  if (!initialised) {
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
    startedByUs = true;
  } else {
    MPI_Query_thread(&provided);
  }
  MpiWorld world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  world.threadMultiple = provided == MPI_THREAD_MULTIPLE;
  return world;
}

void finaliseMpiIfOurs() {
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (startedByUs && !finalised) MPI_Finalize();
  startedByUs = false;
}

MPI_Comm communicatorOf(const std::vector<int>& worldRanks) {
  int worldSize = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  for (int rank : worldRanks)
    if (rank < 0 || rank >= worldSize)
      throw std::invalid_argument("ddlscale: rank " + std::to_string(rank) + " is not one of the MPI job's " +
                                  std::to_string(worldSize) + " ranks");
  MPI_Comm result = MPI_COMM_NULL;
  MPI_Group world = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(worldRanks.size()), worldRanks.data(), &members);
  // The tag keeps two groups made at once by overlapping ranks apart; torch makes groups in the same order on
  // every rank, so a fixed tag suffices.
  const int status = MPI_Comm_create_group(MPI_COMM_WORLD, members, /*tag=*/0x64646c, &result);
  MPI_Group_free(&members);
  MPI_Group_free(&world);
  check(status, "MPI_Comm_create_group");
  return result;
}

std::vector<std::string> interfaceAddresses() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  std::vector<std::string> addresses, loopbacks;
  for (const ifaddrs* entry = list; entry; entry = entry->ifa_next) {
    if (!entry->ifa_addr || entry->ifa_addr->sa_family != AF_INET || !(entry->ifa_flags & IFF_UP)) continue;
    const auto* address = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
    const auto* mask = reinterpret_cast<const sockaddr_in*>(entry->ifa_netmask);
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &address->sin_addr, text, sizeof text);
    const int prefix = mask ? __builtin_popcount(mask->sin_addr.s_addr) : 32;
    (entry->ifa_flags & IFF_LOOPBACK ? loopbacks : addresses).push_back(std::string(text) + "/" + std::to_string(prefix));
  }
  freeifaddrs(list);
  addresses.insert(addresses.end(), loopbacks.begin(), loopbacks.end());
  return addresses;
}

std::string addressToReach(const std::vector<std::string>& rootAddresses, const std::vector<std::string>& ownAddresses) {
  const std::set<std::string> root(rootAddresses.begin(), rootAddresses.end());
  const std::set<std::string> own(ownAddresses.begin(), ownAddresses.end());
  if (root == own)
    for (const std::string& address : rootAddresses)
      if (parse(address).loopback()) return withoutPrefix(address);
  for (const std::string& rootAddress : rootAddresses) {
    const Ipv4 theirs = parse(rootAddress);
    if (theirs.loopback()) continue;
    for (const std::string& ownAddress : ownAddresses) {
      const Ipv4 ours = parse(ownAddress);
      if (!ours.loopback() && sameSubnet(theirs, ours, ours.prefix)) return withoutPrefix(rootAddress);
    }
  }
  for (const std::string& rootAddress : rootAddresses)
    if (!parse(rootAddress).loopback()) return withoutPrefix(rootAddress);
  throw std::runtime_error("ddlscale: rank 0 has no IPv4 address another host can reach its store by");
}

StoreAddress shareStoreAddress(int rootPort) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string message;
  if (rank == 0) {
    std::ostringstream out;
    out << rootPort;
    for (const std::string& address : interfaceAddresses()) out << ' ' << address;
    message = out.str();
  }
  int length = static_cast<int>(message.size());
  check(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(message.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");

  std::istringstream in(message);
  StoreAddress result;
  in >> result.port;
  std::vector<std::string> rootAddresses;
  for (std::string address; in >> address;) rootAddresses.push_back(address);
  result.host = rank == 0 ? "127.0.0.1" : addressToReach(rootAddresses, interfaceAddresses());
  return result;
}

}  // namespace ddl::torch_backend
