#include "runtime/nccl/nccl_job.hpp"

#include <mpi.h>

#include <cstdio>
#include <memory>

#include "runtime/cuda/cuda_devices.hpp"
#include "runtime/cuda/gpu_compute_emulator.hpp"
#include "runtime/mpi/mpi_world.hpp"
#include "runtime/nccl/nccl_collectives.hpp"
#include "runtime/nccl/nccl_mpi_bootstrap.hpp"
#include "runtime/nccl/nccl_transport.hpp"

namespace ddl {

int launchNcclJob(const JobOptions& options, const RankJob& job) {
  requireCudaDevice("nccl");
  MpiWorld world(MPI_COMM_WORLD, options.watchdog);
  try {
    NcclTransport transport(std::make_unique<NcclMpiBootstrap>(MPI_COMM_WORLD, options.watchdog));
    GpuComputeEmulator compute(transport.device());
    NcclCollectives nccl(transport);
    RankContext context{world, transport, compute, &nccl};
    return job(context);
  } catch (const TransportError& error) {
    // NCCL failed on this rank, setting up or running its own collectives: the others would wait for it forever.
    if (options.watchdog) options.watchdog->failJob(error.what(), 3);
    std::fprintf(stderr, "ddlrun: rank %d: %s\n", world.rank(), error.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 3;
  }
}

}  // namespace ddl
