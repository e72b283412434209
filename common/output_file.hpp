#pragma once
// Output written whole or not at all: a failure part-way leaves no half-written file behind.

#include <functional>
#include <ostream>
#include <string>

namespace ddl {

// Calls write(stream) on a new file beside `path` (`path`.partial.XXXXXX), then renames it to `path`; throws InvalidArgument("--out", ...)
// if the file cannot be written, and leaves nothing behind if `write` throws. With an empty path, writes to
// standard output. Commands check their output paths with checkOutputFile before doing any work, so that
// a bad path fails before the simulation or the run, not after it.
void writeOutput(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace ddl
