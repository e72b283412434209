#include "runtime/train/train_command.hpp"

#include <algorithm>
#include <cmath>

#include "common/cli_checks.hpp"
#include "common/machine_memory.hpp"
#include "common/invalid_argument.hpp"

namespace ddl {

TrainCommand::TrainCommand(CLI::App& app)
    : DdlrunCommand(app, "train", "Run a scenario's training iteration with real buffers and allreduces.") {
  command_->add_option("scenario", train_.scenario, "Scenario file (scenarios/*.json)")->required()->check(readableFile());
  command_->add_option("--compute-scale", train_.computeScale, "Multiply the model's compute times by this")
      ->check(finiteIn(1e-6, 1000))
      ->capture_default_str();
  command_->add_option("-n,--iters", train_.iterations, "Timed iterations per algorithm (the median is reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  command_->add_option("-w,--warmup", train_.warmup, "Untimed iterations first")->check(CLI::Range(0, 100000))->capture_default_str();
  command_->add_flag("--json", train_.json, "Write ddlsim's results schema instead of the table");
  command_->add_option("--out", train_.out, "Write the JSON results to this file")->check(writableFile());
  command_->add_option("--trace", train_.trace,
                       "Also write each algorithm's last timed iteration, every rank's compute phases and bucket "
                       "allreduces, as a Chrome trace (ui.perfetto.dev, chrome://tracing), as ddlsim SCENARIO --trace does")
      ->check(writableFile());
  command_->add_option("--host-compute", hostCompute_,
                       "On host transports: 'busy' reproduces compute as work on a core of its own, contending with the "
                       "transport as a backward pass does with NCCL; 'sleep' leaves the cores to the transport")
      ->check(CLI::IsMember({"busy", "sleep"}))
      ->capture_default_str();
  command_->add_option("--configuration", train_.configuration, "Label the points with this instead of the scenario's name")
      ->check(utf8Text());
  flags_.addTo(command_);
}

void TrainCommand::check() {
  requireDistinctOutputs({{"--out", train_.out}, {"--trace", train_.trace}});
  train_.run = flags_.run();
  train_.hostCompute = *hostComputeNamed(hostCompute_);
  train_.transport = flags_.transport().name;  // an unknown transport fails here, before MPI starts
  scenario_.emplace(loadScenario(train_.scenario));
  // The runtime trains as DDP does, one allreduce per bucket: a sharded plan is ddlsim's alone for now,
  // and running it as DDP would measure another experiment under the scenario's name.
  if (isSharded(scenario_->parallelism))
    throw InvalidArgument(train_.scenario + ": $.parallelism", std::string(parallelismName(scenario_->parallelism)) +
                                                                    ": ddlrun train runs ddp only (one allreduce per bucket); "
                                                                    "ddlsim simulates sharded plans");
  const IterationPlan plan = scenario_->iterationPlan(train_.computeScale);
  const double elementBytes = plan.workload().elementBytes;
  const double gradientBytes = elementBytes * static_cast<double>(scenario_->model.parameters());
  // The gradients and as much again in receive staging, on each rank of this machine.
  flags_.requireMemoryPerRank(2 * gradientBytes, train_.scenario, "training " + scenario_->model.name());
  Elements largestBucket = 0;
  for (const GradientBucket& bucket : plan.buckets())
    largestBucket = std::max(largestBucket, bucket.elements.count);
  flags_.requirePiecesFor(elementBytes * static_cast<double>(largestBucket));
  const double compute = plan.workload().computeSeconds();
  train_.run.timeout = flags_.timeout() + std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(compute * 1000)));
}

void TrainCommand::checkForJob(int mpiRanks) {
  ranks_ = checkJob(flags_.transport(), job(nullptr), mpiRanks);
  const IterationPlan plan = scenario_->iterationPlan(train_.computeScale);
  // "auto" needs a tuning table for this many ranks; no bucket may reduce in a switch (NVLS), which the
  // transports have no part for.
  for (const ScenarioAlgorithm& choice : scenario_->algorithms)
    for (const AlgorithmChoice& bucket : scenario_->bucketAlgorithms(choice, ranks_, plan))
      if (bucket.algorithm->reducesInSwitch())
        throw InvalidArgument(scenario_->path + ": " + choice.path,
                              "at " + std::to_string(ranks_) + " ranks: " + bucket.label() +
                                  " reduces in an NVSwitch with multicast (NVLS), which ddlrun's transports have no part for" +
                                  (choice.ncclChosen() ? "; \"nvls\": false keeps NCCL's choice to its rings and trees" : ""));
}

int TrainCommand::launch(SilenceWatchdog* watchdog) {
  return launchJob(flags_.transport(), job(watchdog), [&](RankContext& context) { return runTrain(*scenario_, train_, context); });
}

JobOptions TrainCommand::job(SilenceWatchdog* watchdog) const {
  JobOptions options = flags_.job(watchdog);
  options.hostCompute = train_.hostCompute;
  return options;
}

}  // namespace ddl
