// Plain SimGrid, with nothing of ddlsim: loads a platform file, sends BYTES from one host to another and
// prints how long the transfer took in simulated seconds. What a SimGrid user does with ddlsim's export.
//
//   plain_simgrid_transfer PLATFORM.xml FROM_HOST TO_HOST BYTES

#include <cstdio>
#include <cstdlib>

#include <simgrid/s4u.hpp>

int main(int argc, char** argv) {
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml FROM_HOST TO_HOST BYTES\n", argv[0]);
    return 2;
  }
  engine.load_platform(argv[1]);
  const double bytes = std::atof(argv[4]);
  static int payload = 0;
  double arrived = 0;
  simgrid::s4u::Actor::create("sender", engine.host_by_name(argv[2]),
                              [&] { simgrid::s4u::Mailbox::by_name("transfer")->put(&payload, bytes); });
  simgrid::s4u::Actor::create("receiver", engine.host_by_name(argv[3]), [&] {
    simgrid::s4u::Mailbox::by_name("transfer")->get<int>();
    arrived = simgrid::s4u::Engine::get_clock();
  });
  engine.run();
  std::printf("%.17g\n", arrived);
  return 0;
}
