// ddlrun: runs ddlscale's collective schedules on real hardware, under mpirun (or srun) over MPI or NCCL,
// or as ranks of one process over host memory or CUDA peer copies: benchmarks in the manner of
// nccl-tests, and training iterations of a scenario.

#include <mpi.h>

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "algorithms/io/algorithm_flags.hpp"
#include "algorithms/io/byte_sizes.hpp"
#include "algorithms/collectives/registry.hpp"
#include "algorithms/schedule/invalid_argument.hpp"
#include "runtime/bench/bench_harness.hpp"
#include "runtime/job_launcher.hpp"
#include "runtime/train/train_runner.hpp"

namespace {

struct CommonFlags {
  std::string transport = "mpi";
  int ranks = 0;
  std::string pieceBytes = "1M";
  double timeoutSeconds = 30;

  void addTo(CLI::App* command) {
    command->add_option("--transport", transport,
                        "mpi or nccl (one rank per process, under mpirun), threads or cuda-peer (--ranks N in this process)")
        ->capture_default_str();
    command->add_option("--ranks", ranks, "With --transport threads or cuda-peer: the number of ranks");
    command->add_option("--piece-bytes", pieceBytes, "Split steps into pieces of at most this size, pipelined")->capture_default_str();
    command->add_option("--timeout-s", timeoutSeconds,
                        "Abort the job if no message finishes for this long (a peer died or hangs)")
        ->capture_default_str();
  }
  ddl::JobOptions job(const std::string& baseline) const {
    const auto kind = ddl::parseTransportKind(transport);
    if (!kind) throw ddl::InvalidArgument("--transport", "'" + transport + "' is not mpi, nccl, threads or cuda-peer");
    return {*kind, ranks, baseline};
  }
  ddl::RunOptions options() const {
    if (timeoutSeconds <= 0) throw ddl::InvalidArgument("--timeout-s", "must be positive");
    const std::int64_t piece = ddl::parseByteSize(pieceBytes, "--piece-bytes");
    if (piece < 1) throw ddl::InvalidArgument("--piece-bytes", "must be at least 1");
    return {static_cast<std::size_t>(piece), std::chrono::milliseconds(static_cast<std::int64_t>(timeoutSeconds * 1000))};
  }
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  CLI::App app{
      "ddlrun - run ddlscale's collective schedules on real hardware: under mpirun (or srun) over MPI or NCCL,\n"
      "or as ranks of one process over host memory or CUDA peer copies.\n\n"
      "  mpirun -np 8 ddlrun bench --algorithm ring -b 1K -e 64M --baseline mpi\n"
      "  mpirun -np 8 ddlrun bench --transport nccl --algorithm ddl --dims 2x4 -e 1G --baseline nccl\n"
      "  ddlrun bench --transport cuda-peer --ranks 8 --algorithm halving-doubling --type bfloat16\n"
      "  mpirun -np 8 ddlrun train scenarios/powerai-ddl-resnet50.json --compute-scale 0.1 --json"};
  app.require_subcommand(1);
  app.footer("Exit status: 0 on success; 1 if a result was wrong; 2 on bad input; 3 if a peer died or stopped answering.");

  ddl::AlgorithmFlags algorithm;
  CommonFlags benchCommon;
  std::string minBytes = "1K", maxBytes = "64M", type = "float32", baseline;
  ddl::BenchOptions bench;
  bool csv = false, json = false;
  CLI::App* benchCommand = app.add_subcommand("bench", "Time and check one collective algorithm over a range of sizes (nccl-tests style).");
  algorithm.addTo(benchCommand);
  benchCommand->add_option("-b,--min-bytes", minBytes, "Smallest buffer (bytes; K, M, G suffixes)")->capture_default_str();
  benchCommand->add_option("-e,--max-bytes", maxBytes, "Largest buffer")->capture_default_str();
  benchCommand->add_option("-f,--factor", bench.factor, "Size multiplier between rows")->capture_default_str();
  benchCommand->add_option("-n,--iters", bench.iterations, "Timed runs per size")->capture_default_str();
  benchCommand->add_option("-w,--warmup", bench.warmup, "Untimed runs per size before timing")->capture_default_str();
  benchCommand->add_option("-c,--check", bench.checks, "Checked runs per size (fresh data, exact expected result)")->capture_default_str();
  benchCommand->add_option("--type", type, "float32, float64, bfloat16 or float16")->capture_default_str();
  benchCommand->add_option("--baseline", baseline,
                           "Also run the library's own collective on the same buffers: mpi (with --transport mpi) or nccl "
                           "(with --transport nccl)");
  benchCommand->add_flag("--csv", csv, "CSV instead of the table");
  benchCommand->add_flag("--json", json, "JSON instead of the table");
  benchCommand->add_option("--out", bench.out, "With --csv or --json: write to this file");
  benchCommand->add_option("--configuration", bench.configuration, "A label for the JSON results, to join them with ddlsim's");
  benchCommon.addTo(benchCommand);
  benchCommand->footer(
      "Columns as in nccl-tests: time per run (the slowest rank's average), algbw = bytes / time, busbw = algbw x\n"
      "2(n-1)/n for allreduce or (n-1)/n for reduce-scatter and all-gather, and #wrong: elements, summed over all\n"
      "ranks and checked runs, that differ from the exact expected result. Data is rank- and position-dependent.");

  ddl::TrainOptions train;
  CommonFlags trainCommon;
  CLI::App* trainCommand = app.add_subcommand("train", "Run a scenario's training iteration with real buffers and allreduces.");
  trainCommand->add_option("scenario", train.scenario, "Scenario file (scenarios/*.json)")->required();
  trainCommand->add_option("--compute-scale", train.computeScale, "Multiply the model's compute times by this")->capture_default_str();
  trainCommand->add_option("-n,--iters", train.iterations, "Timed iterations per algorithm (the median is reported)")->capture_default_str();
  trainCommand->add_option("-w,--warmup", train.warmup, "Untimed iterations first")->capture_default_str();
  trainCommand->add_flag("--json", train.json, "Write ddlsim's results schema instead of the table");
  trainCommand->add_option("--out", train.out, "Write the JSON results to this file");
  trainCommand->add_option("--configuration", train.configuration, "Label the points with this instead of the scenario's name");
  trainCommon.addTo(trainCommand);

  int status = 0;
  try {
    app.parse(argc, argv);
    int mpiRanks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &mpiRanks);
    if (benchCommand->parsed()) {
      bench.collective = algorithm.collective();
      bench.algorithm = &algorithm.algorithm();
      bench.algorithmOptions = algorithm.options();
      bench.minBytes = ddl::parseByteSize(minBytes, "--min-bytes");
      bench.maxBytes = ddl::parseByteSize(maxBytes, "--max-bytes");
      if (bench.minBytes > bench.maxBytes) throw ddl::InvalidArgument("--min-bytes", "is larger than --max-bytes");
      if (!(bench.factor > 1)) throw ddl::InvalidArgument("--factor", "must be greater than 1");
      if (bench.iterations < 1 || bench.warmup < 0 || bench.checks < 0)
        throw ddl::InvalidArgument("--iters", "iterations must be at least 1, warm-up and checks at least 0");
      const auto parsedType = ddl::parseDataType(type);
      if (!parsedType) throw ddl::InvalidArgument("--type", "'" + type + "' is not float32, float64, bfloat16 or float16");
      bench.type = *parsedType;
      if (csv && json) throw ddl::InvalidArgument("--csv", "choose one of --csv and --json");
      bench.format = json ? ddl::BenchOptions::Format::Json : csv ? ddl::BenchOptions::Format::Csv : ddl::BenchOptions::Format::Table;
      if (!bench.out.empty() && !csv && !json) throw ddl::InvalidArgument("--out", "only with --csv or --json");
      bench.run = benchCommon.options();
      const ddl::JobOptions job = benchCommon.job(baseline);
      const int ranks = ddl::checkJob(job, mpiRanks);
      ddl::makeSchedule(*bench.algorithm, {bench.collective, ranks, 0, 4}, bench.algorithmOptions);  // validates for this job
      status = ddl::launchJob(job, [&](ddl::RankContext& context) { return ddl::runBench(bench, context); });
    } else {
      if (!(train.computeScale >= 0)) throw ddl::InvalidArgument("--compute-scale", "must not be negative");
      if (train.iterations < 1 || train.warmup < 0) throw ddl::InvalidArgument("--iters", "must be at least 1");
      train.run = trainCommon.options();
      const ddl::JobOptions job = trainCommon.job("");
      ddl::checkJob(job, mpiRanks);
      status = ddl::launchJob(job, [&](ddl::RankContext& context) { return ddl::runTrain(train, context); });
    }
  } catch (const CLI::ParseError& error) {
    if (rank == 0) app.exit(error);
    status = error.get_exit_code() == 0 ? 0 : 2;
  } catch (const ddl::InvalidArgument& error) {
    if (rank == 0) std::cerr << "ddlrun: " << error.what() << '\n';
    status = 2;
  }
  MPI_Finalize();
  return status;
}
