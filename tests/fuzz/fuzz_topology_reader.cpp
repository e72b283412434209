// libFuzzer harness: topology files, read, then placed and routed as a simulation would: a cluster of one
// node and of two, with a route from the first GPU to the last.

#include "tests/fuzz/fuzz_input.hpp"
#include "topologies/cluster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto document = ddl::fuzz::parse(data, size);
  if (!document) return 0;
  ddl::fuzz::readOrRefuse(*document, [](const nlohmann::json& json) {
    const ddl::Topology topology = ddl::topologyFromJson(json, ddl::fuzz::kSource);
    const int perNode = topology.node.gpus;
    const int nodes = topology.nicsUsed > 0 ? 2 : 1;
    for (ddl::Placement placement : {ddl::Placement::Packed, ddl::Placement::RoundRobin}) {
      const ddl::Cluster cluster(topology, perNode * nodes, placement);
      cluster.route(0, cluster.hosts() - 1);
    }
  });
  return 0;
}
