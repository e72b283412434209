#pragma once
// What runs each gradient bucket of a scenario's point: an entry's algorithm with its options at a GPU count,
// auto's tuning tables, NCCL's tuning model, and under a sharded plan one of each collective kind it runs.
// The Scenario members that say it are declared in scenario.hpp; the check the loader runs is here.

#include "common/json_reader.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {

// A sharded plan reduce-scatters and all-gathers: InvalidArgument naming $.algorithms[i] of an entry that has
// no algorithm of each kind, a table of each kind, or NCCL's choice of each (not under hybrid).
void requireShardedAlgorithms(const JsonReader& root, const Scenario& scenario);

}  // namespace ddl
