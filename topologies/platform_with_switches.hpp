#pragma once
// A cluster as an algorithm that reduces in switches (nccl-nvls, nccl-nvls-tree: CollectiveSpec::switches)
// runs on it: after the cluster's ranks, one more host per node, the node's multicast switch
// (NodeTopology::multicastSwitch), which reaches each GPU of its node over the GPU's own route to it and
// reduces as data passes (no γ). Its links are the cluster's: what multimem operations get of them is the
// schedule's (CollectiveSpec::wireBytesPerByte), so the cluster's other collectives keep their full rate.

#include <optional>
#include <string>

#include "topologies/cluster.hpp"
#include "topologies/platform_decorator.hpp"

namespace ddl {

// Why the `switches` of a schedule over `ranks` (CollectiveSpec::switches), called `description`, cannot sit on
// `cluster`, for the caller to name its own field: the nodes name no multicast switch; the switches are not one
// per node; or switch n's ranks are not node n's GPUs (ranks / switches to a switch, in order).
struct SwitchMisfit {
  enum class What { NoMulticastSwitch, NotOnePerNode, RanksOffTheirNode } what;
  std::string reason;
};
// Nullopt where they fit, and for a schedule with no switches.
std::optional<SwitchMisfit> switchMisfit(int ranks, int switches, const std::string& description, const Cluster& cluster);

class PlatformWithSwitches final : public PlatformDecorator {
 public:
  // InvalidArgument naming the topology file's $.node where its node names no multicast switch.
  explicit PlatformWithSwitches(const Cluster& cluster);

  int hosts() const override { return cluster_.hosts() + cluster_.nodes(); }
  std::string hostName(Rank host) const override;
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
