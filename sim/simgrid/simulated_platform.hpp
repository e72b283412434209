#pragma once
// A platform description turned into a SimGrid world: one host per rank, links created as routes need
// them (split-duplex, shared by both directions, or unshared, as described), and explicit routes for exactly the pairs of ranks that will talk, so a message can
// never lack a route once run() starts. SimGrid keeps one engine per process at a time; a simulation
// creates one, runs it, and drops it before the next.
//
// SimGrid is configured for textbook α-β agreement: the CM02 network model without TCP cross-traffic or
// TCP-gamma window limits, so a lone message of n bytes takes Σ latency + n / min bandwidth exactly
// (its defaults, LV08, add about 13x latency and 5% bandwidth loss; see sim/README.md).

#include <map>
#include <memory>
#include <vector>

#include <simgrid/s4u.hpp>

#include "algorithms/schedule/step.hpp"
#include "sim/engine/network_work.hpp"
#include "sim/engine/platform_constants.hpp"
#include "topologies/platform_description.hpp"

namespace ddl {

class SimulatedPlatform {
 public:
  static constexpr double kHostSpeed = ddl::kHostSpeed;

  explicit SimulatedPlatform(const PlatformDescription& description);
  // A SimGrid engine configured as ddlscale configures it, for code that builds its own platform.
  static std::unique_ptr<simgrid::s4u::Engine> createEngine();
  ~SimulatedPlatform();
  SimulatedPlatform(const SimulatedPlatform&) = delete;
  SimulatedPlatform& operator=(const SimulatedPlatform&) = delete;

  // Adds the route from `from` to `to` if not yet there. Only before run().
  void connect(Rank from, Rank to);
  simgrid::s4u::Host* host(Rank rank) const { return hosts_[static_cast<std::size_t>(rank)]; }
  // The FIFO of messages from `from` to `to` on `channel`.
  simgrid::s4u::Mailbox* mailbox(Rank from, Rank to, Channel channel) const;
  double reduceSecondsPerByte(Rank rank) const { return description_.reduceSecondsPerByte(rank); }
  // The rank's SMs as a host of one core, where its training compute runs and where whatever contends with
  // it (sim/simgrid/iteration_on_simgrid.cpp) shares that core by priority; where the description has every rank
  // compute on one machine's cores, that machine, the same host for every rank. Created on first use, only before run()
  // and after every connect(): SimGrid 3.32 refuses a route added to the cluster's zone once the compute
  // hosts' zone is its child ("nullptr is obviously a deficient gateway", measured).
  simgrid::s4u::Host* computeHost(Rank rank);

  // Where the description charges a rank's reductions as memory traffic (ranks sharing one GPU), the
  // host they flow to and the bytes per byte reduced; null where they are computation on the rank's host.
  // connectReductions adds the route; only before run().
  void connectReductions(Rank rank);
  simgrid::s4u::Host* reductionSink(Rank rank) const;
  double reductionBytesPerByte(Rank rank) const;
  // Where carrying a message from `from` to `to` takes work on the machine every rank computes on
  // (PlatformDescription::networkWorkSecondsPerByte): its seconds per byte, and the most it takes per second,
  // keeping pace with the route's narrowest link; zero where carrying is free.
  NetworkWork networkWork(Rank from, Rank to) const { return networkWorkOf(description_, from, to); }
  // That machine's host (the shared compute host, which run() creates where a description charges carrying
  // and nothing asked for it before); null where carrying is free.
  simgrid::s4u::Host* networkWorkHost() const;

  // Runs every actor to its end; false if SimGrid found actors waiting for each other forever.
  bool run();
  static double now();

 private:
  simgrid::s4u::Link* linkFor(LinkId id);
  std::vector<simgrid::s4u::LinkInRoute> linksOf(const std::vector<RouteHop>& hops);

  const PlatformDescription& description_;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  simgrid::s4u::NetZone* zone_ = nullptr;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::map<LinkId, simgrid::s4u::Link*> links_;
  std::map<std::pair<Rank, Rank>, bool> connected_;
  struct Sink {
    simgrid::s4u::Host* host;
    double bytesPerByte;
  };
  std::map<Rank, Sink> reductionSinks_;
  simgrid::s4u::NetZone* computeZone_ = nullptr;
  std::map<Rank, simgrid::s4u::Host*> computeHosts_;
};

}  // namespace ddl
