#pragma once
// What the C API's tests on host memory (library_api_test.cpp) and on GPU memory (gpu/library_nccl_test.cpp)
// share: the values each rank contributes, and the walk over the allreduce algorithms a communicator takes.

#include <cstddef>
#include <string>

#include "algorithms/collectives/registry.hpp"
#include "ddlscale/ddlscale.h"

namespace ddl::testing {

// Small integers, so that every order of addition gives the same sum in every type.
inline float valueOf(std::size_t index, int rank) {
  return static_cast<float>(static_cast<int>((index * 7 + static_cast<std::size_t>(rank) * 3) % 5) - 2);
}

// Sets each allreduce algorithm that `comm` takes without options (the others need options on this many
// ranks) and calls `run(name)` with it chosen; returns how many ran.
template <class Run>
int forEachAllreduceAlgorithmWithoutOptions(ddl_comm comm, Run&& run) {
  int ran = 0;
  for (const AlgorithmDefinition* algorithm : allAlgorithms()) {
    if (algorithm->collective != CollectiveKind::Allreduce) continue;
    const std::string name(algorithm->name);
    if (ddl_comm_set_algorithm(comm, DDL_ALLREDUCE, name.c_str(), nullptr) != DDL_SUCCESS) continue;
    ++ran;
    run(name);
  }
  return ran;
}

}  // namespace ddl::testing
