#include "common/data_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <vector>

#include "common/input_file.hpp"
#include "common/invalid_argument.hpp"
#include "common/nearest_name.hpp"

#ifndef DDLSCALE_SOURCE_DIR
#error "DDLSCALE_SOURCE_DIR must name the source tree, where topologies/, models/ and analysis/ live"
#endif

namespace ddl {

std::filesystem::path dataDirectory() {
  const char* dataDir = std::getenv("DDLSCALE_DATA_DIR");
  return dataDir && *dataDir ? dataDir : DDLSCALE_SOURCE_DIR;
}

std::string findDataFile(const std::string& kind, const std::string& nameOrPath, const std::string& relativeTo,
                         const std::string& field) {
  namespace fs = std::filesystem;
  const bool isPath = nameOrPath.find('/') != std::string::npos ||
                      (nameOrPath.size() > 5 && nameOrPath.substr(nameOrPath.size() - 5) == ".json");
  if (isPath) {
    const fs::path path(nameOrPath);
    const std::string resolved = path.is_absolute() ? path.string() : (fs::path(relativeTo).parent_path() / path).string();
    checkInputFile(resolved, field);
    return resolved;
  }
  const fs::path folder = dataDirectory() / kind;
  const fs::path file = folder / (nameOrPath + ".json");
  std::error_code error;
  if (fs::is_regular_file(file, error)) return file.string();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  const std::vector<std::string_view> known(names.begin(), names.end());
  const std::string singular = kind == "topologies" ? "topology" : kind == "models" ? "model" : "file";
  throw InvalidArgument(field, "no " + singular + " named '" + nameOrPath +
                                   "'" + didYouMean(nameOrPath, known) + " in " + folder.string() + "; known: " +
                                   listOfNames(known) + " (or give a path to a .json file)");
}

}  // namespace ddl
