#pragma once
// `ddlrun bench`: one collective algorithm over a range of sizes, timed and checked the way nccl-tests
// does it, optionally beside the MPI library's own collective. The harness is written once; collectives
// plug in through BenchCollective.

#include <mpi.h>

#include <cstdint>
#include <string>

#include "algorithms/collectives/algorithm.hpp"
#include "runtime/data_type.hpp"
#include "runtime/program_runner.hpp"

namespace ddl {

struct BenchOptions {
  CollectiveKind collective = CollectiveKind::Allreduce;
  const AlgorithmDefinition* algorithm = nullptr;
  AlgorithmOptions algorithmOptions;
  std::int64_t minBytes = 1024;
  std::int64_t maxBytes = 64LL << 20;
  double factor = 2;
  int iterations = 20;
  int warmup = 5;
  int checks = 1;  // checked runs per size
  DataType type = DataType::Float32;
  bool baselineMpi = false;
  enum class Format { Table, Csv, Json } format = Format::Table;
  std::string out;
  RunOptions run;
};

// Every rank calls it. Returns the exit status: 0, or 1 if any element was wrong; a peer that stops
// answering ends the whole job through MPI_Abort.
int runBench(const BenchOptions& options, MPI_Comm communicator);

}  // namespace ddl
