#include "common/input_file.hpp"

#include <unistd.h>

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

#include "common/invalid_argument.hpp"

namespace ddl {

namespace fs = std::filesystem;

namespace {

// The files this process has taken as inputs, by device and inode (so "a/../s.json", "./s.json" and a hard
// link are one file), each with the path it was first named by.
class InputsTaken {
 public:
  void note(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return;
    const std::lock_guard lock(mutex_);
    taken_.emplace(std::make_pair(info.st_dev, info.st_ino), path);
  }
  // The path an input was named by, if `path` is that file; "" otherwise.
  std::string inputAt(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return "";
    const std::lock_guard lock(mutex_);
    const auto found = taken_.find({info.st_dev, info.st_ino});
    return found == taken_.end() ? "" : found->second;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<dev_t, ino_t>, std::string> taken_;
};

InputsTaken& inputsTaken() {
  static InputsTaken inputs;
  return inputs;
}

}  // namespace

std::uintmax_t checkInputFile(const std::string& path, const std::string& field) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (path.empty()) throw InvalidArgument(field, "no file named");
  if (!fs::exists(status)) throw InvalidArgument(field, "no such file: '" + path + "'");
  if (fs::is_directory(status)) throw InvalidArgument(field, "'" + path + "' is a directory, not a file");
  if (!fs::is_regular_file(status)) throw InvalidArgument(field, "'" + path + "' is not a regular file");
  if (::access(path.c_str(), R_OK) != 0) throw InvalidArgument(field, "cannot read '" + path + "' (permission denied)");
  const std::uintmax_t bytes = fs::file_size(path, error);
  if (error) throw InvalidArgument(field, "cannot read '" + path + "': " + error.message());
  inputsTaken().note(path);
  return bytes;
}

void checkOutputFile(const std::string& path, const std::string& field) {
  if (path.empty()) return;
  std::error_code error;
  if (fs::is_directory(path, error)) throw InvalidArgument(field, "'" + path + "' is a directory; name a file in it");
  if (fs::exists(path, error) && !fs::is_regular_file(path, error))
    throw InvalidArgument(field, "'" + path + "' exists and is not a regular file");
  if (fs::exists(path, error) && ::access(path.c_str(), W_OK) != 0)
    throw InvalidArgument(field, "cannot write '" + path + "' (permission denied)");
  if (const std::string input = inputsTaken().inputAt(path); !input.empty())
    throw InvalidArgument(field, "'" + path + "' is " + (input == path ? "" : "'" + input + "', ") +
                                     "an input of this command: writing there would destroy it; name a file of its own");
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(parent, error))
    throw InvalidArgument(field, "cannot write '" + path + "': no directory '" + parent.string() + "'");
  if (::access(parent.c_str(), W_OK) != 0)
    throw InvalidArgument(field, "cannot write '" + path + "': the directory '" + parent.string() + "' is not writable");
}

}  // namespace ddl
