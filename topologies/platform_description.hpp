#pragma once
// What a network simulator needs to know of a platform, independent of the simulator: one host per rank,
// full-duplex links, and the route of links a message from one rank to another crosses. Both the clusters
// built from topology files and the idealised one-link-per-pair platform of the tests describe themselves
// this way; sim/ turns a description into SimGrid zones, and `ddlsim platform --xml` into SimGrid XML.

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/schedule/range.hpp"

namespace ddl {

using LinkId = std::int64_t;

struct PlatformLink {
  std::string name;
  double bandwidthBps = 0;  // per direction
  double latencySeconds = 0;
  // A real link is full duplex and shared by the messages crossing it in one direction. An unshared
  // link gives every message its full bandwidth: the no-contention assumption of the α-β model.
  bool shared = true;
};

struct RouteHop {
  LinkId link;
  bool up;  // crossed in the direction the link was declared (split-duplex links have one of each)
};

class PlatformDescription {
 public:
  virtual ~PlatformDescription() = default;
  virtual int hosts() const = 0;
  virtual std::string hostName(Rank rank) const = 0;
  virtual PlatformLink link(LinkId id) const = 0;
  virtual std::vector<RouteHop> route(Rank from, Rank to) const = 0;
  // γ of the GPU rank `rank` runs on.
  virtual double reduceSecondsPerByte(Rank rank) const = 0;
};

}  // namespace ddl
