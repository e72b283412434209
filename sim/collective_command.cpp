#include "sim/collective_command.hpp"

#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "algorithms/collectives/registry.hpp"
#include "algorithms/schedule/invalid_argument.hpp"
#include "algorithms/io/algorithm_flags.hpp"
#include "sim/collective_simulation.hpp"
#include "sim/human_units.hpp"
#include "sim/topology_flags.hpp"

namespace ddl {
namespace {

struct Arguments {
  AlgorithmFlags algorithm;
  TopologyFlags topology;
  int gpus = 0;
  std::int64_t bytes = 25'557'032LL * 4;  // ResNet-50's fp32 gradients (../shared/reference/README.md)
  int elementBytes = 4;
  bool json = false;
  CLI::App* command = nullptr;
};

int run(Arguments& args) {
  if (!args.command->count("--gpus")) throw InvalidArgument("--gpus", "required");
  if (args.gpus < 1) throw InvalidArgument("--gpus", "must be at least 1");
  if (args.bytes < 0 || args.bytes % args.elementBytes != 0)
    throw InvalidArgument("--bytes", std::to_string(args.bytes) + " is not a whole, non-negative number of " +
                                         std::to_string(args.elementBytes) + "-byte elements");
  const AlgorithmDefinition& algorithm = args.algorithm.algorithm();
  const CollectiveSpec spec{args.algorithm.collective(), args.gpus, args.bytes / args.elementBytes, args.elementBytes};
  const Schedule schedule = makeSchedule(algorithm, spec, args.algorithm.options());
  const Cluster cluster(args.topology.load(), args.gpus, args.topology.placement());
  const CollectiveTiming timing = simulateCollective(schedule, cluster);
  const double busbw = timing.algbwBps() * busBandwidthFactor(spec.kind, spec.ranks);
  if (args.json) {
    std::cout << nlohmann::json{{"collective", toString(spec.kind)},
                                {"algorithm", schedule.description()},
                                {"topology", cluster.topology().name},
                                {"gpus", spec.ranks},
                                {"nodes", cluster.nodes()},
                                {"bytes", spec.bytes()},
                                {"time_s", timing.seconds},
                                {"algbw_Bps", timing.algbwBps()},
                                {"busbw_Bps", busbw}}
                     .dump(1)
              << "\n";
    return 0;
  }
  std::printf("collective  %s %s on %d GPUs of %s (%d nodes)\n", schedule.description().c_str(),
              std::string(toString(spec.kind)).c_str(), spec.ranks, cluster.topology().name.c_str(), cluster.nodes());
  std::printf("bytes       %s\ntime        %s\nalgbw       %s\nbusbw       %s\n", formatBytes(spec.bytes()).c_str(),
              formatSeconds(timing.seconds).c_str(), formatRate(timing.algbwBps()).c_str(), formatRate(busbw).c_str());
  return 0;
}

}  // namespace

void addCollectiveCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<Arguments>();
  CLI::App* command = app.add_subcommand("collective", "Simulate one collective on a topology: time, algbw, busbw.");
  args->command = command;
  args->algorithm.addTo(command);
  command->add_option("--topology", args->topology.topology(), "Topology: a name under topologies/ or a file");
  args->topology.addTo(command);
  command->add_option("--gpus", args->gpus, "Number of GPUs (ranks)");
  command->add_option("--bytes", args->bytes, "Buffer size in bytes")->capture_default_str();
  command->add_option("--element-bytes", args->elementBytes, "Element size in bytes")->capture_default_str();
  command->add_flag("--json", args->json, "Write the result as JSON");
  command->footer(
      "algbw is bytes / time; busbw is algbw times nccl-tests' bus factor (allreduce 2(n-1)/n, reduce-scatter and\n"
      "all-gather (n-1)/n). Every rank starts together; SimGrid models contention on every link of the routes.\n\n"
      "Example:\n  ddlsim collective --algorithm ddl --dims 4x16x4 --topology minsky-p100-ib-edr --gpus 256");
  command->callback([args, &exitCode] { exitCode = run(*args); });
}

}  // namespace ddl
