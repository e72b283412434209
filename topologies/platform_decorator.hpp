#pragma once
// A platform as another, with everything passed through: what a view of a platform that changes one thing
// (its links' latency, a protocol's share of them) derives from, overriding only that.

#include "topologies/platform_description.hpp"

namespace ddl {

class PlatformDecorator : public PlatformDescription {
 public:
  explicit PlatformDecorator(const PlatformDescription& platform) : platform_(platform) {}

  int hosts() const override { return platform_.hosts(); }
  std::string hostName(Rank rank) const override { return platform_.hostName(rank); }
  PlatformLink link(LinkId id) const override { return platform_.link(id); }
  std::vector<RouteHop> route(Rank from, Rank to) const override { return platform_.route(from, to); }
  double reduceSecondsPerByte(Rank rank) const override { return platform_.reduceSecondsPerByte(rank); }
  std::optional<ReductionTraffic> reductionTraffic(Rank rank) const override { return platform_.reductionTraffic(rank); }
  std::optional<double> sharedComputeThroughput() const override { return platform_.sharedComputeThroughput(); }
  double networkWorkSecondsPerByte(Rank from, Rank to) const override { return platform_.networkWorkSecondsPerByte(from, to); }

 protected:
  const PlatformDescription& platform() const { return platform_; }

 private:
  const PlatformDescription& platform_;
};

}  // namespace ddl
