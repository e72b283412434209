#pragma once
// A platform as another, every link's latency zeroed and nothing else changed (the same hosts, links,
// bandwidths, sharing and routes): simulated beside the original, it separates the time a run loses to
// latency from the time it loses to bandwidth.

#include "topologies/platform_decorator.hpp"

namespace ddl {

class PlatformWithoutLatency final : public PlatformDecorator {
 public:
  explicit PlatformWithoutLatency(const PlatformDescription& platform) : PlatformDecorator(platform) {}

  PlatformLink link(LinkId id) const override {
    PlatformLink link = platform().link(id);
    link.latencySeconds = 0;
    link.protocolFixedLatencySeconds = 0;
    return link;
  }
};

}  // namespace ddl
