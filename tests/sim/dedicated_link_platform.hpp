#pragma once
// The platform of the α-β-γ model: every ordered pair of ranks has a link of its own, with the α and β of
// the level of the CostModel the pair crosses, and unshared, so that even messages of different channels
// between the same pair do not slow each other. On it a simulated collective must take exactly the
// algorithm's closed-form time; tests hold the SimGrid backend to that.

#include "algorithms/cost/cost_model.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

class DedicatedLinkPlatform final : public PlatformDescription {
 public:
  explicit DedicatedLinkPlatform(CostModel model) : model_(std::move(model)) {}

  int hosts() const override { return model_.ranks(); }
  std::string hostName(Rank rank) const override { return "rank" + std::to_string(rank); }
  PlatformLink link(LinkId id) const override {
    const auto from = static_cast<Rank>(id / hosts());
    const auto to = static_cast<Rank>(id % hosts());
    const LinkCost& cost = model_.link(model_.levelBetween(from, to));
    return {"link" + std::to_string(from) + "-" + std::to_string(to),
            cost.seconds_per_byte > 0 ? 1 / cost.seconds_per_byte : 1e30, cost.latency_s, LinkSharing::None};
  }
  std::vector<RouteHop> route(Rank from, Rank to) const override {
    return {{static_cast<LinkId>(from) * hosts() + to, true}};
  }
  double reduceSecondsPerByte(Rank) const override { return model_.reduceSecondsPerByte(); }

 private:
  CostModel model_;
};

}  // namespace ddl
