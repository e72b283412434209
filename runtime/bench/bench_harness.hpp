#pragma once
// `ddlrun bench`: one collective algorithm over a range of sizes, timed and checked the way nccl-tests
// does it, optionally beside a library's own collective (MPI's or NCCL's). The harness is written once:
// collectives plug in through BenchCollective, transports and worlds through RankContext.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/collectives/algorithm.hpp"
#include "algorithms/io/nccl_tests_table.hpp"
#include "algorithms/io/tuning_table.hpp"
#include "algorithms/schedule/schedule.hpp"
#include "algorithms/tuning/nccl_tuning_model.hpp"
#include "runtime/data_type.hpp"
#include "runtime/program_runner.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {

struct BenchOptions {
  CollectiveKind collective = CollectiveKind::Allreduce;
  const AlgorithmDefinition* algorithm = nullptr;  // null where a schedule file, a tuning table or NCCL's model chooses
  AlgorithmOptions algorithmOptions;
  std::shared_ptr<const TuningTable> tuning;  // --algorithm auto --tuning FILE: the choice per size
  std::optional<NcclJob> nccl;                // --algorithm nccl --topology T: NCCL's tuning model's choice per size
  std::shared_ptr<const Schedule> schedule;  // --schedule FILE, verified: run at its one size
  std::vector<std::int64_t> sizes;  // bytes, from sweepByteSizes or linearByteSizes (and ncclTestsSizes)
  std::int64_t minBytes = 0, maxBytes = 0;  // -b and -e as given, for the table's header
  double factor = 2;                // the sweep's -f, for the table's header
  std::int64_t stepBytes = 0;       // -i: a linear sweep (the table's header)
  int cycles = 1;                   // -N: the whole sweep this many times
  int iterations = 20;
  int warmup = 5;
  int checks = 1;  // checked runs per size
  DataType type = DataType::Float32;
  RankAverage average = kNcclTestsAverage;  // -a: which figure over the ranks each time is
  int unalign = 0;                          // -u: the buffers begin this many elements into their memory
  enum class Format { Table, Csv, Json } format = Format::Table;
  std::string out;
  std::string configuration;  // a label for the results, to join them with predictions
  std::string transport;      // --transport, for the results
  bool baseline = false;      // also run the transport's library's own collective (RankContext::library)
  bool checkAgreement = false;  // --check-agreement: the ranks agree on each run's call first, as libddlscale can
  RunOptions run;
};

// Every rank calls it. Returns the exit status: 0, or 1 if any element was wrong; a peer that stops
// answering ends the whole job through the transport's abortJob.
int runBench(const BenchOptions& options, RankContext& context);

}  // namespace ddl
