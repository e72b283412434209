#include "common/scratch_file.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace ddl {

ScratchFile::ScratchFile(const std::string& name, const std::string& content) {
  const char* folder = std::getenv("TMPDIR");
  std::string pattern = std::string(folder && *folder ? folder : "/tmp") + "/ddlscale-XXXXXX-" + name;
  // mkstemps: a name no other run has, and no symbolic link planted at a fixed name followed.
  const int handle = ::mkstemps(pattern.data(), static_cast<int>(name.size() + 1));
  if (handle < 0) throw std::runtime_error("cannot make a temporary file for " + name + " in " + pattern.substr(0, pattern.rfind('/')));
  ::close(handle);
  path_ = pattern;
  std::ofstream file(path_, std::ios::binary | std::ios::trunc);
  file << content;
  if (!file.flush()) {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    throw std::runtime_error("cannot write the temporary file " + path_ + " (is the disk full?)");
  }
}

ScratchFile::~ScratchFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace ddl
