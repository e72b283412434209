#pragma once
// A platform as another, every link's latency zeroed and nothing else changed (the same hosts, links,
// bandwidths, sharing and routes): simulated beside the original, it separates the time a run loses to
// latency from the time it loses to bandwidth.

#include "topologies/platform_description.hpp"

namespace ddl {

class PlatformWithoutLatency final : public PlatformDescription {
 public:
  explicit PlatformWithoutLatency(const PlatformDescription& platform) : platform_(platform) {}

  int hosts() const override { return platform_.hosts(); }
  std::string hostName(Rank rank) const override { return platform_.hostName(rank); }
  PlatformLink link(LinkId id) const override {
    PlatformLink link = platform_.link(id);
    link.latencySeconds = 0;
    return link;
  }
  std::vector<RouteHop> route(Rank from, Rank to) const override { return platform_.route(from, to); }
  double reduceSecondsPerByte(Rank rank) const override { return platform_.reduceSecondsPerByte(rank); }
  std::optional<ReductionTraffic> reductionTraffic(Rank rank) const override { return platform_.reductionTraffic(rank); }
  std::optional<double> sharedComputeThroughput() const override { return platform_.sharedComputeThroughput(); }
  double networkWorkSecondsPerByte(Rank from, Rank to) const override { return platform_.networkWorkSecondsPerByte(from, to); }

 private:
  const PlatformDescription& platform_;
};

}  // namespace ddl
