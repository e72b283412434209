#pragma once
// How much memory this machine can give a job, so that a request too large for it is refused up front,
// with its estimate, instead of ending in an out-of-memory kill or std::bad_alloc half-way through.

#include <cstdint>
#include <string>

namespace ddl {

// MemAvailable from /proc/meminfo (what the kernel can hand out without swapping), or, where that cannot
// be read, the physical memory. DDLSCALE_MEMORY_BYTES overrides both, so tests can stand for a smaller
// machine.
std::int64_t availableMemoryBytes();

// Throws InvalidArgument(field, ...) if `bytes` exceeds availableMemoryBytes(): "<what> needs about 9.1 TB;
// this machine has 22.6 GB available".
void requireMemory(double bytes, const std::string& field, const std::string& what);

// 1.5 GB, 320 MB, 12 kB: decimal units, three significant digits.
std::string formatByteCount(double bytes);

}  // namespace ddl
