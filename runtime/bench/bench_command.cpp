#include "runtime/bench/bench_command.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/schedule_file.hpp"
#include "common/byte_sizes.hpp"
#include "common/cli_checks.hpp"
#include "common/data_files.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/machine_memory.hpp"
#include "common/nearest_name.hpp"
#include "scenarios/nccl_job.hpp"

namespace ddl {

BenchCommand::BenchCommand(CLI::App& app)
    : DdlrunCommand(app, "bench", "Time and check one collective algorithm over a range of sizes (nccl-tests style).") {
  algorithm_.addTo(command_);
  command_->add_option("--topology", topology_,
                       "With --algorithm nccl: the cluster NCCL's tuning model is told of (a name under topologies/ or a "
                       "file), the ranks packed onto its nodes, as ddlsim collective --algorithm nccl simulates it");
  command_->add_option("--schedule", scheduleFile_,
                       "Run the schedule in this file (ddlsim schedule --json writes one; ddlsim collective --schedule "
                       "simulates it) instead of an algorithm: it gives the collective, the ranks and the size, and is "
                       "verified before any rank runs it")
      ->check(readableFile());
  command_->add_option("-b,--min-bytes,--minbytes", minBytes_, "Smallest buffer (bytes; K, M, G suffixes)")->capture_default_str();
  command_->add_option("-e,--max-bytes,--maxbytes", maxBytes_, "Largest buffer")->capture_default_str();
  command_->add_option("-f,--factor,--stepfactor", factor_, "Size multiplier between rows")->check(finiteIn(1, 1024))->capture_default_str();
  command_->add_option("-i,--step-bytes,--stepbytes", stepBytes_, "Size increment between rows instead of -f (K, M, G suffixes)");
  command_->add_option("-n,--iters", bench_.iterations, "Timed runs per size")->check(CLI::Range(1, 1000000))->capture_default_str();
  command_->add_option("-w,--warmup,--warmup_iters", bench_.warmup, "Untimed runs per size before timing")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  command_->add_option("-N,--cycles,--run_cycles", bench_.cycles, "Run the whole sweep this many times (table only)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command_->add_option("-a,--average", average_,
                       "Each time over the ranks: 0 rank 0's, 1 the mean (nccl-tests' default), 2 the least, 3 the most")
      ->check(CLI::Range(0, 3))
      ->capture_default_str();
  command_->add_option("-u,--unalign", bench_.unalign,
                       "Begin both buffers this many elements into their memory, misaligned (nccl-tests' -u)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  command_->add_option("-c,--check", bench_.checks, "Checked runs per size (fresh data, exact expected result)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  command_->add_option("-d,--type,--datatype", type_, "float32 (nccl-tests: float), float64 (double), bfloat16, float16 (half)")
      ->capture_default_str();
  command_->add_option("-o,--op", op_, "The reduction: sum (the schedules sum; nccl-tests' prod, min, max, avg are not here)")
      ->capture_default_str();
  command_->add_option("-z,--blocking", blocking_,
                       "1: each run ends on the CPU before the next starts, which is how ddlrun always runs (nccl-tests' "
                       "-z 1); nccl-tests' 0, 2 and 3 are not available")
      ->capture_default_str();
  command_->add_option("--baseline", baseline_,
                       "Also run the library's own collective on the same buffers: mpi (with --transport mpi) or nccl "
                       "(with --transport nccl)");
  command_->add_flag("--check-agreement", checkAgreement_,
                     "Before each run, the ranks agree on its call (collective, type, count, reduction, call number) "
                     "as libddlscale does under DDLSCALE_CHECK_AGREEMENT=1, and the time includes it: what the check "
                     "costs. Host transports only (mpi, threads)");
  command_->add_flag("--csv", csv_, "CSV instead of the table");
  command_->add_flag("--json", json_, "JSON instead of the table");
  command_->add_option("--out", bench_.out, "With --csv or --json: write to this file")->check(writableFile());
  command_->add_option("--configuration", bench_.configuration, "A label for the JSON results, to join them with ddlsim's")
      ->check(utf8Text());
  flags_.addTo(command_);
  ncclTestsFlags_.addTo(command_);
  command_->footer(
      "The table is nccl-tests' 2.19 (all_reduce_perf and its kin), to the letter, so that tools written for it read\n"
      "it: size, count (per rank for all-gather and reduce-scatter), type, redop, root, then out of place and in\n"
      "place: time per run (us; each rank's average, then over the ranks as -a says: the mean by default),\n"
      "algbw = bytes / time, busbw = algbw x 2(n-1)/n for allreduce or (n-1)/n for reduce-scatter and all-gather\n"
      "(GB/s), and #wrong: elements, summed over all ranks and checked runs, that differ from the exact expected\n"
      "result (out of place, and input elements the run changed); then the '# Avg bus bandwidth' footer. Out of place reads one buffer and writes the other, as\n"
      "nccl-tests' sendbuff and recvbuff. With --baseline, the library's own in-place figures follow in four\n"
      "more columns. Data is rank- and position-dependent. nccl-tests' flags are taken under its names too; those\n"
      "with no meaning here are refused unless at nccl-tests' default.");
}

void BenchCommand::check() {
  if (!topology_.empty() && !algorithm_.ncclChosen())
    throw InvalidArgument("--topology", "only with --algorithm nccl, whose tuning model it informs; the transports run on the job's own machines");
  if (!scheduleFile_.empty()) {
    // The file gives the collective, the ranks and the one size; it is verified before any rank runs it.
    algorithm_.requireNoneGiven("--schedule");
    for (const char* option : {"--min-bytes", "--max-bytes", "--factor"})
      if (command_->count(option)) throw InvalidArgument(option, "cannot be combined with --schedule: the file gives the size");
    bench_.schedule = std::make_shared<const Schedule>(loadVerifiedSchedule(scheduleFile_, "--schedule"));
    if (bench_.schedule->spec().switches > 0)
      throw InvalidArgument("--schedule", scheduleFile_ + " reduces in a switch (its \"switches\"), which ddlrun's transports have "
                                          "no part for; ddlsim collective --schedule simulates it");
    bench_.collective = bench_.schedule->spec().kind;
  } else if (algorithm_.tuned()) {
    bench_.collective = algorithm_.collective();
    bench_.tuning = std::make_shared<const TuningTable>(algorithm_.tuning());
    if (const std::string chosen = switchChoiceOf(*bench_.tuning); !chosen.empty())
      throw InvalidArgument("--tuning", "the table " + chosen + ", which reduces in an NVSwitch (NVLS) that ddlrun's transports have "
                                        "no part for: tune with --algorithms that leave nccl-nvls and nccl-nvls-tree out");
  } else if (algorithm_.ncclChosen()) {
    // NCCL's model needs the cluster (GPU, NVLink, NICs); the job's ranks come with it (checkForJob).
    if (topology_.empty())
      throw InvalidArgument("--topology", "--algorithm nccl chooses from what NCCL knows of the cluster: name its topology");
    bench_.collective = algorithm_.collective();
    ncclTopology_ = loadTopology(findDataFile("topologies", topology_, "./", "--topology"));
  } else {
    bench_.collective = algorithm_.collective();
    bench_.algorithm = &algorithm_.algorithm();
    refuseSwitchReduction(*bench_.algorithm, "--algorithm", ", which ddlrun's transports have no part for");
    bench_.algorithmOptions = algorithm_.options();
  }
  const auto type = parseDataType(type_);
  if (!type)
    throw InvalidArgument("--type", "'" + type_ + "' is not float32, float64, bfloat16 or float16 (nccl-tests: float, double, "
                                                  "bfloat16, half)");
  if (!isFloatingPoint(*type))
    throw InvalidArgument("--type", "'" + type_ + "': ddlrun bench measures float32, float64, bfloat16 and float16 (its check "
                                                  "pattern is exact in them); integer types run through libddlscale");
  if (op_ != "sum") throw InvalidArgument("--op", "'" + op_ + "': ddlrun's schedules sum; only -o sum");
  if (blocking_ != 1)
    throw InvalidArgument("--blocking", std::to_string(blocking_) + ": ddlrun ends each run on the CPU before the next "
                                                                     "(nccl-tests' -z 1); only -z 1");
  ncclTestsFlags_.check();
  bench_.average = static_cast<RankAverage>(average_);
  bench_.type = *type;
  const auto elementBytes = static_cast<int>(sizeOf(bench_.type));
  bench_.factor = factor_;
  if (bench_.schedule) {
    const CollectiveSpec& spec = bench_.schedule->spec();
    if (spec.elementBytes != elementBytes)
      throw InvalidArgument("--type", std::string(toString(bench_.type)) + " has " + std::to_string(elementBytes) +
                                          "-byte elements; " + scheduleFile_ + " is a schedule of " +
                                          std::to_string(spec.elementBytes) + "-byte elements");
    bench_.sizes = {spec.elements * spec.elementBytes};
  } else {
    bench_.minBytes = parseByteSize(minBytes_, "--min-bytes");
    bench_.maxBytes = parseByteSize(maxBytes_, "--max-bytes");
    if (!stepBytes_.empty()) {
      if (command_->count("--factor")) throw InvalidArgument("--step-bytes", "choose one of -i (--step-bytes) and -f (--factor)");
      bench_.stepBytes = parseByteSize(stepBytes_, "--step-bytes");
      bench_.sizes = linearByteSizes(bench_.minBytes, bench_.maxBytes, bench_.stepBytes, elementBytes);
    } else {
      bench_.sizes = sweepByteSizes(bench_.minBytes, bench_.maxBytes, factor_, elementBytes);
    }
  }
  if (csv_ && json_) throw InvalidArgument("--csv", "choose one of --csv and --json");
  if (bench_.cycles > 1 && (csv_ || json_))
    throw InvalidArgument("--cycles", "only with the table: a results file holds each size once");
  bench_.format = json_ ? BenchOptions::Format::Json : csv_ ? BenchOptions::Format::Csv : BenchOptions::Format::Table;
  if (!bench_.out.empty() && !csv_ && !json_) throw InvalidArgument("--out", "only with --csv or --json");
  bench_.run = flags_.run();
  const TransportEntry& transport = flags_.transport();  // an unknown transport fails here, before MPI starts
  if (!baseline_.empty()) {
    // Each library once (nccl and nccl-threads share NCCL's), and the transports each runs on.
    std::vector<std::string_view> libraries, itsTransports;
    for (const TransportEntry& entry : transports()) {
      if (!entry.library.empty() && std::find(libraries.begin(), libraries.end(), entry.library) == libraries.end())
        libraries.push_back(entry.library);
      if (entry.library == baseline_) itsTransports.push_back(entry.name);
    }
    if (itsTransports.empty()) throw InvalidArgument("--baseline", "'" + baseline_ + "' is not " + listOfNames(libraries));
    if (transport.library != baseline_)
      throw InvalidArgument("--baseline", "'" + baseline_ + "' runs on the buffers of --transport " + listOfNames(itsTransports) +
                                              ", not " + std::string(transport.name));
  }
  bench_.baseline = !baseline_.empty();
  if (checkAgreement_ && transport.onGpus)
    throw InvalidArgument("--check-agreement", "the check's messages go between host buffers, which --transport " +
                                                   std::string(transport.name) + " does not send; use mpi or threads");
  bench_.checkAgreement = checkAgreement_;
  bench_.transport = transport.name;

  const auto largest = static_cast<double>(bench_.sizes.back());
  // Each rank holds nccl-tests' two buffers (out of place reads one and writes the other) and as much again
  // in receive staging, in host memory or on its GPU (with host copies of the buffers to fill and check).
  flags_.requireMemoryPerRank((largest + bench_.unalign * elementBytes) * (transport.onGpus ? 2 : 3), "--max-bytes",
                              "a " + formatBytes(largest) + " buffer");
  requireGpuMemory(transport, flags_.ranksOnThisHost(), 3 * largest, "--max-bytes");
  flags_.requirePiecesFor(largest);
}

void BenchCommand::checkForJob(int mpiRanks) {
  const TransportEntry& transport = flags_.transport();
  ranks_ = checkJob(transport, flags_.job(nullptr), mpiRanks);
  const std::string ranksFlag = transport.inOneProcess ? "--ranks" : "mpirun -np";
  if (bench_.schedule) {
    if (bench_.schedule->ranks() != ranks_)
      throw InvalidArgument(ranksFlag, std::to_string(ranks_) + " ranks, but " + scheduleFile_ + " is a schedule for " +
                                           std::to_string(bench_.schedule->ranks()));
    return;
  }
  // All-gather and reduce-scatter run the sizes nccl-tests runs: whole 16-byte blocks per rank.
  const int elementBytes = static_cast<int>(sizeOf(bench_.type));
  bench_.sizes = ncclTestsSizes(bench_.collective, bench_.sizes, elementBytes, ranks_);
  if (bench_.sizes.empty())
    throw InvalidArgument("--max-bytes", "no size of the sweep holds a 16-byte block for each of " + std::to_string(ranks_) +
                                             " ranks, as nccl-tests' " + std::string(toString(bench_.collective)) + " needs");
  // Options that do not fit this many ranks fail here (mpirun -np sets the ranks, or --ranks), and so do
  // chunks too small for the largest buffer, and a tuning table made for another rank count.
  if (bench_.tuning) algorithm_.requireTuningFits(bench_.collective, ranks_, ranksFlag, "", static_cast<int>(sizeOf(bench_.type)));
  if (ncclTopology_) {
    try {
      bench_.nccl = ncclJobOf(*ncclTopology_, ranks_);
    } catch (const InvalidArgument& error) {
      throw InvalidArgument(ranksFlag, error.message());
    }
    return;  // NCCL's choices are schedules of its algorithms at every size, whatever the size
  }
  algorithm_.schedule({bench_.collective, ranks_, bench_.sizes.back() / static_cast<std::int64_t>(sizeOf(bench_.type)),
                       static_cast<int>(sizeOf(bench_.type))},
                      ranksFlag);
}

int BenchCommand::launch(SilenceWatchdog* watchdog) {
  return launchJob(flags_.transport(), flags_.job(watchdog), [&](RankContext& context) { return runBench(bench_, context); });
}

}  // namespace ddl
