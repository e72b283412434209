#include "topologies/node_routes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>

#include "common/invalid_argument.hpp"

namespace ddl {
namespace {

std::vector<NodeHop> reversed(std::vector<NodeHop> path) {
  std::reverse(path.begin(), path.end());
  for (NodeHop& hop : path) hop.up = !hop.up;
  return path;
}

// Breaks ties between paths of equal latency in favour of fewer hops.
constexpr double kPerHop = 1e-15;

struct Graph {
  std::vector<std::string> names;  // gpu0 .. gpu(n-1), then the other devices
  std::map<std::string, int> ids;
  struct Edge {
    int to;
    int link;
    bool up;
  };
  std::vector<std::vector<Edge>> edges;
  std::vector<bool> transit;  // may a path pass through this vertex?
};

Graph graphOf(const NodeTopology& node) {
  Graph graph;
  for (int gpu = 0; gpu < node.gpus; ++gpu) graph.names.push_back(NodeTopology::gpuName(gpu));
  graph.names.insert(graph.names.end(), node.devices.begin(), node.devices.end());
  for (std::size_t i = 0; i < graph.names.size(); ++i) graph.ids[graph.names[i]] = static_cast<int>(i);
  graph.edges.resize(graph.names.size());
  graph.transit.assign(graph.names.size(), true);
  for (int gpu = 0; gpu < node.gpus; ++gpu) graph.transit[static_cast<std::size_t>(gpu)] = false;
  for (const std::string& nic : node.nics) graph.transit[static_cast<std::size_t>(graph.ids[nic])] = false;
  for (std::size_t l = 0; l < node.links.size(); ++l) {
    const int a = graph.ids.at(node.links[l].from);
    const int b = graph.ids.at(node.links[l].to);
    graph.edges[static_cast<std::size_t>(a)].push_back({b, static_cast<int>(l), true});
    graph.edges[static_cast<std::size_t>(b)].push_back({a, static_cast<int>(l), false});
  }
  return graph;
}

struct ShortestPaths {
  std::vector<double> distance;
  std::vector<NodeHop> via;  // the hop that reaches each vertex; link -1 for none
  std::vector<int> previous;

  std::vector<NodeHop> pathTo(int vertex) const {
    std::vector<NodeHop> path;
    for (int at = vertex; previous[static_cast<std::size_t>(at)] >= 0; at = previous[static_cast<std::size_t>(at)])
      path.push_back(via[static_cast<std::size_t>(at)]);
    std::reverse(path.begin(), path.end());
    return path;
  }
};

ShortestPaths dijkstra(const Graph& graph, const NodeTopology& node, int source) {
  const std::size_t n = graph.names.size();
  ShortestPaths paths{std::vector<double>(n, std::numeric_limits<double>::infinity()), std::vector<NodeHop>(n, {-1, true}),
                      std::vector<int>(n, -1)};
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  paths.distance[static_cast<std::size_t>(source)] = 0;
  queue.push({0, source});
  while (!queue.empty()) {
    const auto [distance, vertex] = queue.top();
    queue.pop();
    if (distance > paths.distance[static_cast<std::size_t>(vertex)]) continue;
    if (vertex != source && !graph.transit[static_cast<std::size_t>(vertex)]) continue;
    for (const Graph::Edge& edge : graph.edges[static_cast<std::size_t>(vertex)]) {
      const double through = distance + node.links[static_cast<std::size_t>(edge.link)].latencySeconds + kPerHop;
      if (through < paths.distance[static_cast<std::size_t>(edge.to)]) {
        paths.distance[static_cast<std::size_t>(edge.to)] = through;
        paths.via[static_cast<std::size_t>(edge.to)] = {edge.link, edge.up};
        paths.previous[static_cast<std::size_t>(edge.to)] = vertex;
        queue.push({through, edge.to});
      }
    }
  }
  return paths;
}

}  // namespace

NodeRoutes::NodeRoutes(const Topology& topology) : gpus_(topology.node.gpus) {
  const NodeTopology& node = topology.node;
  const Graph graph = graphOf(node);
  auto unreachable = [&](const std::string& from, const std::string& to) {
    throw InvalidArgument(topology.path + ": $.node.links", "no route from " + from + " to " + to +
                                                                 " (GPUs and NICs do not forward traffic)");
  };
  gpuToGpu_.resize(static_cast<std::size_t>(gpus_ * gpus_));
  gpuToSwitch_.resize(static_cast<std::size_t>(gpus_));
  switchToGpu_.resize(static_cast<std::size_t>(gpus_));
  for (int from = 0; from < gpus_; ++from) {
    const ShortestPaths paths = dijkstra(graph, node, from);
    if (!node.multicastSwitch.empty()) {
      const int vertex = graph.ids.at(node.multicastSwitch);
      if (std::isinf(paths.distance[static_cast<std::size_t>(vertex)])) unreachable(NodeTopology::gpuName(from), node.multicastSwitch);
      gpuToSwitch_[static_cast<std::size_t>(from)] = paths.pathTo(vertex);
      switchToGpu_[static_cast<std::size_t>(from)] = reversed(paths.pathTo(vertex));
    }
    // Ranks sharing one GPU reach each other through its memory, not through the node's links.
    for (int to = 0; to < gpus_ && !node.sharedMemory; ++to) {
      if (to == from) continue;
      if (std::isinf(paths.distance[static_cast<std::size_t>(to)]))
        unreachable(NodeTopology::gpuName(from), NodeTopology::gpuName(to));
      gpuToGpu_[index(from, to)] = paths.pathTo(to);
    }
    if (topology.nicsUsed == 0) continue;  // a node on its own
    // The closest used NIC; equally close ones are shared out by GPU index.
    std::vector<int> closest;
    double best = std::numeric_limits<double>::infinity();
    for (int nic = 0; nic < topology.nicsUsed; ++nic) {
      const double distance = paths.distance[static_cast<std::size_t>(graph.ids.at(node.nics[static_cast<std::size_t>(nic)]))];
      if (distance < best - 1e-12) {
        best = distance;
        closest = {nic};
      } else if (std::fabs(distance - best) <= 1e-12) {
        closest.push_back(nic);
      }
    }
    if (closest.empty()) unreachable(NodeTopology::gpuName(from), "any NIC");
    const int nic = closest[static_cast<std::size_t>(from) % closest.size()];
    nicOfGpu_.push_back(nic);
    gpuToNic_.push_back(paths.pathTo(graph.ids.at(node.nics[static_cast<std::size_t>(nic)])));
    nicToGpu_.push_back(reversed(gpuToNic_.back()));
  }
}

int NodeRoutes::nicsInUse() const {
  std::vector<int> nics = nicOfGpu_;
  std::sort(nics.begin(), nics.end());
  return static_cast<int>(std::unique(nics.begin(), nics.end()) - nics.begin());
}

}  // namespace ddl
