#include "runtime/train/train_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/io/output_file.hpp"
#include "algorithms/io/results_json.hpp"
#include "runtime/bench/bench_collective.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "scenarios/scenario.hpp"

namespace ddl {
namespace {

using Clock = std::chrono::steady_clock;

TrainingWorkload scaled(TrainingWorkload workload, double scale) {
  workload.forwardSeconds *= scale;
  workload.optimizerSeconds *= scale;
  for (GradientTensor& tensor : workload.gradients) tensor.backwardSeconds *= scale;
  return workload;
}

void waitUntil(Clock::time_point start, double seconds) {
  std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
}

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

struct Measured {
  ScalingPoint point;
  std::int64_t wrong = 0;
};

Measured measure(const Scenario& scenario, const ScenarioAlgorithm& choice, const IterationPlan& plan,
                 const TrainOptions& options, MpiTransport& transport, MPI_Comm communicator) {
  const int ranks = transport.size();
  const Rank rank = transport.rank();
  const AlgorithmDefinition& algorithm = findAlgorithm(CollectiveKind::Allreduce, choice.name);
  const AlgorithmOptions algorithmOptions = scenario.optionsFor(choice, ranks);
  const TrainingWorkload& workload = plan.workload();
  std::vector<Program> programs;
  for (const GradientBucket& bucket : plan.buckets())
    programs.push_back(makeSchedule(algorithm, {CollectiveKind::Allreduce, ranks, bucket.elements.count, 4}, algorithmOptions)
                           .program(rank));

  std::vector<float> gradients(static_cast<std::size_t>(workload.gradientElements()));
  const std::vector<double> ready = plan.bucketReadySeconds();
  const double backwardEnd = workload.forwardSeconds + workload.backwardSeconds();
  ProgramRunner runner(transport, options.run);
  std::vector<double> iterations;
  std::vector<std::vector<double>> bucketSeconds(plan.buckets().size());
  Measured measured;

  for (int iteration = 0; iteration < options.warmup + options.iterations; ++iteration) {
    const bool checked = iteration == 0;  // the first run also proves the buckets' sums exact
    if (checked)
      for (const GradientBucket& bucket : plan.buckets())
        benchCollective(CollectiveKind::Allreduce)
            .fill(gradients.data() + bucket.elements.offset, bucket.elements.count, rank, ranks, DataType::Float32);
    MPI_Barrier(communicator);
    const Clock::time_point start = Clock::now();
    for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
      waitUntil(start, ready[b]);  // the backward pass has produced this bucket's gradients
      const double bucketStart = since(start);
      runner.run(programs[b], gradients.data() + plan.buckets()[b].elements.offset, DataType::Float32);
      bucketSeconds[b].push_back(since(start) - bucketStart);
    }
    waitUntil(start, backwardEnd);
    const double optimizerStart = since(start);  // after backward and after the last allreduce
    waitUntil(start, optimizerStart + workload.optimizerSeconds);
    double seconds = since(start);
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, communicator);
    if (iteration >= options.warmup) iterations.push_back(seconds);
    if (checked) {
      for (const GradientBucket& bucket : plan.buckets())
        measured.wrong += benchCollective(CollectiveKind::Allreduce)
                              .countWrong(gradients.data() + bucket.elements.offset, bucket.elements.count, rank, ranks, DataType::Float32);
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &measured.wrong, 1, MPI_INT64_T, MPI_SUM, communicator);

  ScalingPoint& point = measured.point;
  point.configuration = scenario.name;
  point.gpus = ranks;
  point.algorithm = algorithm.description(algorithmOptions);
  point.batchPerGpu = scenario.batchPerGpu;
  point.iterationSeconds = median(iterations);
  point.computeSeconds = workload.computeSeconds();
  for (std::size_t b = 0; b < plan.buckets().size(); ++b) {
    CollectiveMeasurement collective;
    collective.bytes = 4.0 * static_cast<double>(plan.buckets()[b].elements.count);
    collective.seconds = median(bucketSeconds[b]);
    MPI_Allreduce(MPI_IN_PLACE, &collective.seconds, 1, MPI_DOUBLE, MPI_MAX, communicator);
    collective.algbwBps = collective.seconds > 0 ? collective.bytes / collective.seconds : 0;
    collective.busbwBps = collective.algbwBps * (ranks > 1 ? 2.0 * (ranks - 1) / ranks : 0);
    point.collectives.push_back(collective);
  }
  return measured;
}

}  // namespace

int runTrain(const TrainOptions& options, MPI_Comm communicator) {
  const Scenario scenario = loadScenario(options.scenario);
  MpiTransport transport(communicator);
  for (const ScenarioAlgorithm& choice : scenario.algorithms) scenario.optionsFor(choice, transport.size());
  const IterationPlan base = scenario.iterationPlan();
  const IterationPlan plan(scaled(base.workload(), options.computeScale), base.bucketBytes(), base.overlapsBackward());

  ScalingResults results = emptyResults(scenario, "ddlrun");
  std::int64_t wrong = 0;
  for (const ScenarioAlgorithm& choice : scenario.algorithms) {
    Measured measured;
    try {
      measured = measure(scenario, choice, plan, options, transport, communicator);
    } catch (const TransportError& error) {
      transport.abortJob("training iteration with " + choice.name + ": " + error.what());
    }
    wrong += measured.wrong;
    results.points.push_back(measured.point);
    if (transport.rank() == 0 && !options.json)
      std::printf("%6d  %-36s %10.3f ms  efficiency %5.1f%%  exposed %8.3f ms  %s\n", measured.point.gpus,
                  measured.point.algorithm.c_str(), measured.point.iterationSeconds * 1e3, 100 * measured.point.efficiency(),
                  measured.point.exposedCommunicationSeconds() * 1e3, measured.wrong == 0 ? "sums exact" : "WRONG SUMS");
  }
  if (transport.rank() == 0 && (options.json || !options.out.empty()))
    writeOutput(options.out, [&](std::ostream& out) { out << resultsToJson(results).dump(1) << "\n"; });
  return wrong == 0 ? 0 : 1;
}

}  // namespace ddl
