#include "sim/simgrid/collective_on_simgrid.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/simgrid/actor_outcomes.hpp"
#include "sim/simgrid/program_on_simgrid.hpp"

namespace ddl {
namespace sg4 = simgrid::s4u;

CollectiveTiming simulateCollective(const Schedule& schedule, const PlatformDescription& platform, int runs) {
  if (runs < 1) throw std::invalid_argument("runs must be at least 1");
  SimulatedPlatform simulated(platform);
  const std::vector<Program> programs = schedule.allPrograms();
  for (const Program& program : programs) connectProgramPeers(program, simulated);

  const double start = SimulatedPlatform::now();
  std::vector<double> end(programs.size(), start);
  ActorOutcomes outcomes(schedule.participants());
  const int elementBytes = schedule.spec().elementBytes;
  const double wireBytesPerByte = schedule.spec().wireBytesPerByte();
  for (const Program& program : programs) {
    sg4::Actor::create("rank" + std::to_string(program.rank()), simulated.host(program.rank()), [&, rank = program.rank()] {
      outcomes.run(rank, [&] {
        // A mailbox delivers in order, as MPI's non-overtaking rule does, so run r's receives match run r's sends.
        for (int run = 0; run < runs; ++run) runProgramOnSimGrid(programs[static_cast<std::size_t>(rank)], simulated, elementBytes, wireBytesPerByte);
        end[static_cast<std::size_t>(rank)] = SimulatedPlatform::now();
      });
    });
  }
  outcomes.check(simulated.run());
  for (double& at : end) at -= start;
  const double slowest = *std::max_element(end.begin(), end.end());
  end.resize(static_cast<std::size_t>(schedule.ranks()));  // the ranks' ends, not the switches'
  return {slowest / runs, schedule.spec().bytes(), std::move(end)};
}

}  // namespace ddl
