// Times one point of a scenario: every algorithm of SCENARIO at GPUS GPUs, one simulation of its training
// iteration each (as `ddlsim SCENARIO` runs per point, without the baseline and the no-latency twin), on
// ENGINE, with the scenario's effects or without them. Prints the predicted iteration, the wall time of the
// simulation and the peak resident memory of the process so far, and where the step engine evened buckets
// to simulate ranks that do the same thing once (sim/step/step_iteration.hpp), by how much.
//
//   iteration_benchmark SCENARIO GPUS message|step [--no-effects]

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "scenarios/scenario.hpp"
#include "sim/registered_engines.hpp"
#include "sim/engine/switch_placement.hpp"

int main(int argc, char** argv) {
  using namespace ddl;
  if (argc < 4 || argc > 5 || (argc == 5 && std::string(argv[4]) != "--no-effects")) {
    std::fprintf(stderr, "usage: %s SCENARIO GPUS message|step [--no-effects]\n", argv[0]);
    return 2;
  }
  try {
    const Scenario scenario = loadScenario(argv[1]);
    const int gpus = std::atoi(argv[2]);
    const Engine& engine = engineNamed(argv[3], "ENGINE");
    const IterationEffects effects = argc == 5 ? IterationEffects{} : scenario.effects;
    const IterationPlan plan = scenario.iterationPlan();
    for (const ScenarioAlgorithm& choice : scenario.algorithms) {
      // One algorithm for every bucket, or what "auto" or "nccl" chooses for each.
      const BucketAlgorithms algorithms = scenario.bucketAlgorithms(choice, gpus, plan);
      const auto start = std::chrono::steady_clock::now();
      const IterationCollectives buckets = bucketAllreduces(plan, algorithms, gpus);
      const IterationPlatform on(scenario.topology, scenario.placement, buckets);
      const IterationSimulation simulated = engine.iteration(plan, buckets, on.platform(), effects);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      std::printf("%s at %d GPUs on the %s engine, %d iteration(s): %.6f s simulated in %.3f s, peak %.0f MB\n",
                  scenario.labelFor(choice, gpus).c_str(), gpus, std::string(engine.name()).c_str(), simulated.iterations,
                  simulated.iterationSeconds, wall, static_cast<double>(usage.ru_maxrss) / 1024);
      if (simulated.evenedBucketChange > 0) std::printf("  buckets evened by at most %.4f%%\n", 100 * simulated.evenedBucketChange);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "iteration_benchmark: %s\n", error.what());
    return 2;
  }
  return 0;
}
