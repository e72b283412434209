// Plain SimGrid, with nothing of ddlsim: the pattern where SimGrid 3.32's default ("Lazy") network update
// ends a transfer early, and its "Full" update does not. Host 0 sends 256 KiB to host 1 and 256 KiB to host
// 2 at once, at 58 us; host 1 posted its receive at RECEIVER1_AT seconds, host 2 at 40 us. Each route: a
// 100 GB/s port of 1.2 us, a 20 GB/s link of 1 us and the receiver's port, so each transfer alone takes
// 3.4 us + 262144 B / 20 GB/s = 16.5072 us, and the two share no bottleneck: both end at 74.5072 us.
// Under Lazy, with both receives posted before the sends, the receive at host 2 ends at 64.6768 us, before
// its data could have arrived, while the send of the same transfer ends at 74.5072 us.
//
//   plain_simgrid_lazy_update RECEIVER1_AT --cfg=network/optim:Lazy|Full
//
// Prints, one per line: the end of the receive at host 1, at host 2, then of the two sends.

#include <cstdio>
#include <cstdlib>
#include <string>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

int main(int argc, char** argv) {
  sg4::Engine engine(&argc, argv);  // takes the --cfg arguments out of argv
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RECEIVER1_AT --cfg=network/optim:Lazy|Full\n", argv[0]);
    return 2;
  }
  const double receiver1At = std::atof(argv[1]);
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  sg4::NetZone* zone = sg4::create_full_zone("zone");
  sg4::Host* hosts[3];
  for (int i = 0; i < 3; ++i) hosts[i] = zone->create_host("h" + std::to_string(i), 1e9);
  using Direction = sg4::LinkInRoute::Direction;
  sg4::Link* port = zone->create_split_duplex_link("port0", 100e9)->set_latency(1.2e-6)->seal();
  for (int to : {1, 2}) {
    sg4::Link* link = zone->create_split_duplex_link("link" + std::to_string(to), 20e9)->set_latency(1e-6)->seal();
    sg4::Link* theirs = zone->create_split_duplex_link("port" + std::to_string(to), 100e9)->set_latency(1.2e-6)->seal();
    zone->add_route(hosts[0]->get_netpoint(), hosts[to]->get_netpoint(), nullptr, nullptr,
                    {{port, Direction::UP}, {link, Direction::UP}, {theirs, Direction::DOWN}}, false);
  }
  zone->seal();
  double ends[4] = {0, 0, 0, 0};
  static char payload = 0;
  for (int to : {1, 2})
    sg4::Actor::create("receiver" + std::to_string(to), hosts[to], [&, to] {
      sg4::this_actor::sleep_until(to == 1 ? receiver1At : 40e-6);
      void* data = nullptr;
      sg4::Mailbox::by_name("0>" + std::to_string(to))->get_async(&data)->wait();
      ends[to - 1] = sg4::Engine::get_clock();
    });
  sg4::Actor::create("sender", hosts[0], [&] {
    sg4::this_actor::sleep_until(58e-6);
    sg4::CommPtr first = sg4::Mailbox::by_name("0>1")->put_async(&payload, 262144);
    sg4::CommPtr second = sg4::Mailbox::by_name("0>2")->put_async(&payload, 262144);
    first->wait();
    ends[2] = sg4::Engine::get_clock();
    second->wait();
    ends[3] = sg4::Engine::get_clock();
  });
  engine.run();
  for (double end : ends) std::printf("%.17g\n", end);
  return 0;
}
