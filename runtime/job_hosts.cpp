#include "runtime/job_hosts.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

namespace ddl {

JobHosts jobHosts(World& world) {
  char name[256] = "unknown";
  gethostname(name, sizeof name - 1);
  std::error_code error;
  // "net:[4026531840]": the same for every process of one network namespace.
  const std::string space = std::filesystem::read_symlink("/proc/self/ns/net", error).string();
  std::map<std::string, int> ranksOn;
  for (const std::string& host : world.gatherText(std::string(name) + " " + space)) ++ranksOn[host];
  JobHosts hosts{static_cast<int>(ranksOn.size()), 0};
  for (const auto& [host, ranks] : ranksOn) hosts.ranksPerHost = std::max(hosts.ranksPerHost, ranks);
  return hosts;
}

}  // namespace ddl
