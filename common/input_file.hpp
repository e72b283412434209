#pragma once
// Files named by users, checked before anything is done with them: an input must be a readable regular
// file, an output must land in an existing, writable directory and not be a directory itself. A problem
// is an InvalidArgument naming `field` (the file itself, or the option that named it).

#include <cstdint>
#include <string>

namespace ddl {

// Returns the file's size in bytes.
std::uintmax_t checkInputFile(const std::string& path, const std::string& field);

// An empty path means standard output and is always fine.
void checkOutputFile(const std::string& path, const std::string& field);

}  // namespace ddl
