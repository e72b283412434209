#include "sim/cli/platform_command.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "algorithms/schedule/collective.hpp"
#include "common/cli_checks.hpp"
#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/machine_memory.hpp"
#include "common/output_file.hpp"
#include "common/scratch_file.hpp"
#include "sim/cli/topology_flags.hpp"
#ifdef DDLSCALE_WITH_SIMGRID
#include "sim/simgrid/platform_xml.hpp"
#include "sim/simgrid/platform_xml_check.hpp"
#include "sim/simgrid/simulated_platform.hpp"
#endif

namespace ddl {
namespace {

struct PlatformArguments {
  TopologyFlags topology;
  int nodes = 2;
  bool xml = false;
  std::string out;
};

// One route from rank 0: its hops, its latency (the sum) and its bandwidth (the narrowest link).
void describeRoute(std::ostream& out, const Cluster& cluster, Rank to) {
  double latency = 0;
  double bandwidth = 1e300;
  std::string links;
  for (const RouteHop& hop : cluster.route(0, to)) {
    const PlatformLink link = cluster.link(hop.link);
    latency += link.latencySeconds;
    bandwidth = std::min(bandwidth, link.bandwidthBps);
    links += (links.empty() ? "" : " ") + link.name;
  }
  char line[160];
  std::snprintf(line, sizeof line, "  %-10s -> %-10s %10s %12s   ", cluster.hostName(0).c_str(), cluster.hostName(to).c_str(),
                formatSeconds(latency).c_str(), formatRate(bandwidth).c_str());
  out << line << links << "\n";
}

#ifdef DDLSCALE_WITH_SIMGRID
// A route or zoneRoute of the SimGrid file takes about 300 bytes (measured: 273 on average at 256 Minsky GPUs).
constexpr double kXmlBytesPerRoute = 300;
constexpr double kMaxXmlBytes = 1e9;

// SimGrid 3.32 looks each link of a route up from the root zone, through every zone before it: loading the
// file takes time that grows as the square of its GPUs (measured here: 0.7 s at 2048 Minsky GPUs, 17.8 s at
// 8192, 107 s at 16384). Said before the wait where it is long.
constexpr double kLoadSecondsPerSquaredGpu = 107.0 / (16384.0 * 16384.0);

// The file is written to a scratch file first and loaded back into SimGrid (platform_xml_check): only a file
// SimGrid routes as the cluster does is put out.
void writeVerifiedXml(const std::string& out, const Cluster& cluster) {
  const double routes = static_cast<double>(simGridXmlRouteCount(cluster));
  if (kXmlBytesPerRoute * routes > kMaxXmlBytes)
    throw InvalidArgument("--nodes", "the SimGrid file of " + std::to_string(cluster.nodes()) + " nodes, " +
                                         std::to_string(cluster.topology().network.nodesPerLeaf) + " per leaf, lists " +
                                         std::to_string(static_cast<long long>(routes)) + " routes (a route per pair of GPUs in a node, of nodes in a leaf, and of leaves): about " +
                                         formatBytes(kXmlBytesPerRoute * routes) + ", more than the " +
                                         formatBytes(kMaxXmlBytes) + " this export writes");
  std::ostringstream text;
  writeSimGridXml(text, cluster, SimulatedPlatform::kHostSpeed, 1024);
  const double hosts = cluster.hosts();
  if (const double seconds = kLoadSecondsPerSquaredGpu * hosts * hosts; seconds > 10)
    std::fprintf(stderr, "ddlsim platform: reading the file back into SimGrid to verify it, about %.0f s at %d GPUs\n", seconds,
                 cluster.hosts());
  const ScratchFile scratch("platform.xml", text.str());
  if (const auto mismatch = simGridXmlMismatch(scratch.path(), cluster))
    throw std::logic_error("the exported platform failed its read-back into SimGrid, so it is not written: " + *mismatch);
  writeOutput(out, [&](std::ostream& file) { file << text.str(); });
}

#else
void writeVerifiedXml(const std::string&, const Cluster&) {
  throw InvalidArgument("--xml", "needs a ddlsim built with SimGrid (cmake -DDDLSCALE_SIMGRID=ON), which reads the file back "
                                 "to verify it; this one was built without");
}
#endif

int runPlatform(const PlatformArguments& args) {
  const Topology topology = args.topology.load("topology");
  const long long hosts = static_cast<long long>(args.nodes) * topology.node.gpus;
  if (hosts > kMaxRanks)
    throw InvalidArgument("--nodes", std::to_string(args.nodes) + " nodes of " + std::to_string(topology.node.gpus) +
                                         " GPUs are " + std::to_string(hosts) + " GPUs; at most " + std::to_string(kMaxRanks));
  const Cluster cluster(topology, static_cast<int>(hosts), args.topology.placement());
  if (args.xml) {
    writeVerifiedXml(args.out, cluster);
    return 0;
  }
  writeOutput(args.out, [&](std::ostream& out) {
    out << topology.name << ": " << cluster.nodes() << " nodes of " << topology.node.gpus << " " << topology.node.gpuModel
        << ", " << topology.nicsUsed << " NIC(s) of " << formatRate(topology.network.nicBandwidthBps) << " per node, "
        << topology.network.nodesPerLeaf << " nodes per leaf, oversubscription " << topology.network.oversubscription
        << "\n\nroutes from rank 0 (latency is the sum over the route, bandwidth its narrowest link):\n";
    for (Rank to = 1; to < cluster.hosts(); ++to)
      if (cluster.locate(to).node == 0 || cluster.locate(to).gpu == cluster.locate(0).gpu) describeRoute(out, cluster, to);
  });
  return 0;
}

}  // namespace

void addPlatformCommand(CLI::App& app, int& exitCode) {
  auto args = std::make_shared<PlatformArguments>();
  CLI::App* command = app.add_subcommand("platform", "Describe a topology's routes, or export it as a SimGrid platform file.");
  command->add_option("topology", args->topology.topology(), "Topology: a name under topologies/ or a file")->required();
  args->topology.addTo(command);
  command->add_option("--nodes", args->nodes, "Number of nodes")->check(CLI::Range(1, kMaxRanks))->capture_default_str();
  command->add_flag("--xml", args->xml, "Write a SimGrid platform file (a zone per node and per leaf, ddlsim's network model as <config>)");
  command->add_option("--out", args->out, "Write to this file instead of standard output")->check(writableFile());
  command->callback([args, &exitCode] { exitCode = runPlatform(*args); });
}

}  // namespace ddl
