#pragma once
// A rank: one GPU, or one process, of a job, numbered 0..P-1. Schedules, topologies and runtimes all count
// in it.

#include <cstdint>

namespace ddl {

using Rank = std::int32_t;

}  // namespace ddl
