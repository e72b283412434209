#pragma once
// Output written whole or not at all: a failure part-way leaves no half-written file behind.

#include <functional>
#include <ostream>
#include <string>

namespace ddl {

// Calls write(stream) on `path` + ".partial", then renames it to `path`; throws InvalidArgument("--out", ...)
// if the file cannot be written. With an empty path, writes to standard output.
void writeOutput(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace ddl
