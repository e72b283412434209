#pragma once
// How much memory this machine can give a job, so that a request too large for it is refused up front,
// with its estimate, instead of ending in an out-of-memory kill or std::bad_alloc half-way through.

#include <cstdint>
#include <string>

namespace ddl {

// MemAvailable from /proc/meminfo (what the kernel can hand out without swapping), or, where that cannot
// be read, the physical memory; less, where this process's cgroup (v2: a Slurm job, a container) allows
// less. DDLSCALE_MEMORY_BYTES overrides all of them, so tests can stand for a smaller machine.
std::int64_t availableMemoryBytes();

// The address space this process may still map under its limit (ulimit -v, RLIMIT_AS), less what it maps
// now; infinite where there is no limit. Thread stacks count here though they are hardly ever touched.
double addressSpaceLeftBytes();

// Throws InvalidArgument(field, ...) if `bytes`, the memory the work needs on this machine, exceeds
// availableMemoryBytes() ("<what> needs about 9.1 TB; this machine has 22.6 GB available"), or if
// `addressSpaceBytes`, what this process will map for it (its share of `bytes`, and stacks, which are
// mapped whole but hardly touched), exceeds addressSpaceLeftBytes(). By default the two are the same.
void requireMemory(double bytes, const std::string& field, const std::string& what, double addressSpaceBytes = -1);

}  // namespace ddl
