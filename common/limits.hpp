#pragma once
// The limits that protect the machine, shared by every reader and command: a value beyond one is an input
// error naming the field, never an allocation that fails half-way through.

#include <cstdint>

namespace ddl {

// The most ranks ddlscale schedules, simulates or runs: the largest jobs it is meant to plan (100,000 GPUs),
// with room to round up to a grid. Memory estimates refuse most large cases before it.
constexpr int kMaxRanks = 1 << 17;

// The largest buffer, in bytes: 1 PiB, far above any gradient set, and small enough that sizes and their
// products stay exact in 64 bits and in doubles.
constexpr std::int64_t kMaxBufferBytes = std::int64_t{1} << 50;

}  // namespace ddl
