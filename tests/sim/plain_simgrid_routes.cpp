// Plain SimGrid, with nothing of ddlsim: loads a platform file and prints, for every ordered pair of hosts,
// the links of SimGrid's route between them, one pair per line:
//
//   FROM TO LINK LINK ...
//
// (a split-duplex link as SimGrid names its directions, NAME_UP or NAME_DOWN). How a SimGrid user would
// check which links an exported platform routes a message over.
//
//   plain_simgrid_routes PLATFORM.xml

#include <cstdio>
#include <vector>

#include <simgrid/s4u.hpp>

int main(int argc, char** argv) {
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml\n", argv[0]);
    return 2;
  }
  engine.load_platform(argv[1]);
  const std::vector<simgrid::s4u::Host*> hosts = engine.get_all_hosts();
  for (const simgrid::s4u::Host* from : hosts)
    for (const simgrid::s4u::Host* to : hosts) {
      if (from == to) continue;
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      from->route_to(to, links, &latency);
      std::printf("%s %s", from->get_cname(), to->get_cname());
      for (const simgrid::s4u::Link* link : links) std::printf(" %s", link->get_cname());
      std::printf("\n");
    }
  return 0;
}
