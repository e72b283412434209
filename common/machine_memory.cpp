#include "common/machine_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <limits>
#include <optional>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

namespace {

// What the cgroup this process runs in (a Slurm job, a container) still allows it, from cgroup v2's
// memory.max and memory.current; nothing where there is no limit or no cgroup v2.
std::optional<std::int64_t> cgroupMemoryLeft() {
  std::ifstream membership("/proc/self/cgroup");
  std::string line;
  while (std::getline(membership, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    const std::string folder = "/sys/fs/cgroup" + line.substr(3);
    std::ifstream maxFile(folder + "/memory.max");
    std::ifstream currentFile(folder + "/memory.current");
    std::string max;
    long long current = 0;
    if (!(maxFile >> max) || max == "max" || !(currentFile >> current)) return std::nullopt;
    return std::max<std::int64_t>(0, std::atoll(max.c_str()) - current);
  }
  return std::nullopt;
}

}  // namespace

std::int64_t availableMemoryBytes() {
  if (const char* override = std::getenv("DDLSCALE_MEMORY_BYTES")) {
    char* end = nullptr;
    const long long bytes = std::strtoll(override, &end, 10);
    if (end != override && *end == '\0' && bytes > 0) return bytes;
  }
  std::int64_t available = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    long long kilobytes = 0;
    if (fields >> key >> kilobytes && key == "MemAvailable:") available = kilobytes * 1024;
  }
  if (const auto left = cgroupMemoryLeft()) available = std::min(available, *left);
  return available;
}

double addressSpaceLeftBytes() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::numeric_limits<double>::infinity();
  // VmSize: what this process maps now.
  std::ifstream status("/proc/self/status");
  std::string line;
  double mapped = 0;
  while (std::getline(status, line)) {
    std::istringstream fields(line);
    std::string key;
    double kilobytes = 0;
    if (fields >> key >> kilobytes && key == "VmSize:") mapped = kilobytes * 1024;
  }
  return std::max(0.0, static_cast<double>(limit.rlim_cur) - mapped);
}

void requireMemory(double bytes, const std::string& field, const std::string& what, double addressSpaceBytes) {
  const auto available = static_cast<double>(availableMemoryBytes());
  if (bytes > available)
    throw InvalidArgument(field, what + " needs about " + formatBytes(bytes) + "; this machine has " +
                                     formatBytes(available) + " available");
  if (addressSpaceBytes < 0) addressSpaceBytes = bytes;
  const double addressSpace = addressSpaceLeftBytes();
  if (addressSpaceBytes > addressSpace)
    throw InvalidArgument(field, what + " needs about " + formatBytes(addressSpaceBytes) +
                                     " of address space, stacks included; this process may map " +
                                     formatBytes(addressSpace) + " more (ulimit -v)");
}

}  // namespace ddl
