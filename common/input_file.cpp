#include "common/input_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "common/invalid_argument.hpp"

namespace ddl {

namespace fs = std::filesystem;

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
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(parent, error))
    throw InvalidArgument(field, "cannot write '" + path + "': no directory '" + parent.string() + "'");
  if (::access(parent.c_str(), W_OK) != 0)
    throw InvalidArgument(field, "cannot write '" + path + "': the directory '" + parent.string() + "' is not writable");
}

}  // namespace ddl
