#include "algorithms/io/output_file.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "algorithms/schedule/invalid_argument.hpp"

namespace ddl {

void writeOutput(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) {
    write(std::cout);
    std::cout.flush();
    return;
  }
  const std::string partial = path + ".partial";
  {
    std::ofstream file(partial);
    if (!file) throw InvalidArgument("--out", "cannot write '" + path + "'");
    write(file);
    if (!file.flush()) {
      std::filesystem::remove(partial);
      throw InvalidArgument("--out", "cannot write '" + path + "'");
    }
  }
  std::filesystem::rename(partial, path);
}

}  // namespace ddl
