#pragma once
// A cluster as a SimGrid platform file (XML, DTD version 4.1), so SimGrid users can reuse a ddlscale
// cluster: ddlsim's network model as <config>, and the cluster's hierarchy as nested zones, so the file
// grows with the nodes, not with the pairs of GPUs:
//
//   zone "cluster" (Full)       the fabric: one zoneRoute per pair of leaves, over both leaves' uplinks
//     zone "leafL" (Full)       a leaf switch: one zoneRoute per pair of its nodes, and to "leafL-uplink"
//       zone "nK" (Full)        a node: a host per GPU, the node's links, a route per pair of its GPUs,
//                               and from each GPU out of its NIC's cable to the router "nK-gateway"
//       zone "leafL-uplink"     holds the router "leafL-switch", where the leaf's uplinks start
//
// With one leaf the "cluster" zone is the leaf; with one node, it holds just that node. A route joins the
// pieces Cluster::route joins (out of the node, between leaves, into the node), so SimGrid times every
// message as ddlsim does. SimGrid forbids an empty route, so the routes a leaf holds cross one FATPIPE
// link "leafL-crossbar" of no latency and unlimited bandwidth: the non-blocking switch, whose latency the
// topology counts in its cables. SimGrid's own <cluster> and fat-tree zones give every host the same
// private link, which cannot hold a node's NVLink graph; nested zones can.

#include <cstdint>
#include <ostream>

#include "topologies/cluster.hpp"

namespace ddl {

// The routes and zoneRoutes the file lists, known before it is written.
std::int64_t simGridXmlRouteCount(const Cluster& cluster);

void writeSimGridXml(std::ostream& out, const Cluster& cluster, double hostSpeed, int coresPerHost);

}  // namespace ddl
