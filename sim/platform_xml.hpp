#pragma once
// A platform description as a SimGrid platform file (XML, DTD version 4.1), so SimGrid users can reuse a
// ddlscale cluster: ddlsim's network model as <config>, one zone with Full routing, a host per GPU,
// split-duplex links, and an explicit route for every ordered pair of GPUs.

#include <ostream>

#include "topologies/platform_description.hpp"

namespace ddl {

void writeSimGridXml(std::ostream& out, const PlatformDescription& platform, double hostSpeed, int coresPerHost);

}  // namespace ddl
