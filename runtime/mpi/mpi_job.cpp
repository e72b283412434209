#include "runtime/mpi/mpi_job.hpp"

#include "runtime/mpi/mpi_collectives.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "runtime/mpi/mpi_world.hpp"

namespace ddl {

int launchMpiJob(const JobOptions& options, const RankJob& job) {
  MpiWorld world(MPI_COMM_WORLD, options.watchdog);
  MpiTransport transport(MPI_COMM_WORLD, options.watchdog);
  const std::unique_ptr<ComputeEmulator> compute = makeHostComputeEmulator(options.hostCompute);
  MpiCollectives mpi(MPI_COMM_WORLD, options.watchdog);
  RankContext context{world, transport, *compute, &mpi};
  return job(context);
}

}  // namespace ddl
