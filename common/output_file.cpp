#include "common/output_file.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>

#include "common/input_file.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

// The process's umask, read without setting it: umask(2) can only be read by changing it, which would race
// with ranks running as threads (ddlrun --transport threads) that create files meanwhile.
mode_t processUmask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;  // the usual one, where /proc does not say
}

}  // namespace

void writeOutput(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) {
    write(std::cout);
    std::cout.flush();
    return;
  }
  checkOutputFile(path, "--out");
  // A name of its own beside `path` (mkstemp): two runs writing the same --out do not share one, and a
  // symbolic link planted at a fixed name is not followed.
  std::string partial = path + ".partial.XXXXXX";
  const int descriptor = ::mkstemp(partial.data());
  if (descriptor < 0) throw InvalidArgument("--out", "cannot write '" + path + "'");
  // mkstemp makes the file private (0600); what is written is the user's, with the permissions any other
  // program's output gets (0666 less the umask).
  const bool permitted = ::fchmod(descriptor, 0666 & ~processUmask()) == 0;
  ::close(descriptor);
  if (!permitted) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw InvalidArgument("--out", "cannot write '" + path + "'");
  }
  auto fail = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw InvalidArgument("--out", "cannot write '" + path + "'" + why);
  };
  try {
    std::ofstream file(partial, std::ios::trunc);
    if (!file) fail("");
    write(file);
    if (!file.flush()) fail(" (is the disk full?)");
  } catch (...) {
    // Whatever failed, a write that stopped part-way leaves nothing behind (fail() has removed it already).
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) fail(": " + error.message());
}

}  // namespace ddl
