#pragma once
// A cluster as an algorithm that reduces in switches (nccl-nvls, nccl-nvls-tree: CollectiveSpec::switches)
// runs on it: after the cluster's ranks, one more host per node, the node's multicast switch
// (NodeTopology::multicastSwitch), which reaches each GPU of its node over the GPU's own route to it and
// reduces as data passes (no γ). Every link carries 5/6 of its bandwidth: NCCL's tuning model rates NVLS at
// 5/6 of what its channels' links carry (src/graph/tuning.cc, v2.23.4-1: "ratio *= 5.0/6.0" for NVLS and
// NVLS-tree, read), which is what multimem loads and stores through a switch deliver against plain copies.

#include "topologies/cluster.hpp"
#include "topologies/platform_decorator.hpp"

namespace ddl {

class PlatformWithSwitches final : public PlatformDecorator {
 public:
  static constexpr double kNvlsBandwidthShare = 5.0 / 6.0;

  // InvalidArgument naming the topology file's $.node where its node names no multicast switch.
  explicit PlatformWithSwitches(const Cluster& cluster);

  int hosts() const override { return cluster_.hosts() + cluster_.nodes(); }
  std::string hostName(Rank host) const override;
  PlatformLink link(LinkId id) const override;
  std::vector<RouteHop> route(Rank from, Rank to) const override;
  double reduceSecondsPerByte(Rank host) const override { return isSwitch(host) ? 0 : cluster_.reduceSecondsPerByte(host); }
  std::optional<ReductionTraffic> reductionTraffic(Rank host) const override {
    return isSwitch(host) ? std::nullopt : cluster_.reductionTraffic(host);
  }
  double networkWorkSecondsPerByte(Rank from, Rank to) const override {
    return isSwitch(from) || isSwitch(to) ? 0 : cluster_.networkWorkSecondsPerByte(from, to);
  }

  bool isSwitch(Rank host) const { return host >= cluster_.hosts(); }

 private:
  const Cluster& cluster_;
};

}  // namespace ddl
