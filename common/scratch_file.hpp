#pragma once
// A file of the process's own in the temporary folder ($TMPDIR, else /tmp), for a program that reads a path
// (a plotter, SimGrid's platform loader), removed when it goes out of scope.

#include <string>

namespace ddl {

class ScratchFile {
 public:
  // A new file "ddlscale-XXXXXX-<name>" holding `content`; std::runtime_error if it cannot be made or written.
  ScratchFile(const std::string& name, const std::string& content);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ddl
