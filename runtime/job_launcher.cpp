#include "runtime/job_launcher.hpp"

#include <mpi.h>

#include "algorithms/io/machine_memory.hpp"
#include "algorithms/schedule/invalid_argument.hpp"
#include "runtime/compute/host_compute_emulator.hpp"
#include "runtime/in_process/host_engine.hpp"
#include "runtime/in_process/in_process_job.hpp"
#include "runtime/mpi/mpi_baseline.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "runtime/mpi/mpi_world.hpp"
#ifdef DDLSCALE_WITH_CUDA
#include "runtime/cuda/cuda_jobs.hpp"
#endif

namespace ddl {
namespace {

// Each rank is a thread with its own buffers; beyond this, use MPI across processes.
constexpr int kMaxRanksInOneProcess = 1024;

constexpr TransportKind kKinds[] = {TransportKind::Mpi, TransportKind::Nccl, TransportKind::Threads, TransportKind::CudaPeer};

int launchMpiJob(const JobOptions& options, const std::function<int(RankContext&)>& job) {
  MpiWorld world(MPI_COMM_WORLD, options.watchdog);
  MpiTransport transport(MPI_COMM_WORLD, options.watchdog);
  HostComputeEmulator compute;
  MpiBaseline mpi(MPI_COMM_WORLD, options.watchdog);
  RankContext context{world, transport, compute, options.baseline == "mpi" ? &mpi : nullptr};
  return job(context);
}

}  // namespace

std::optional<TransportKind> parseTransportKind(std::string_view name) {
  for (TransportKind kind : kKinds)
    if (toString(kind) == name) return kind;
  return std::nullopt;
}

std::string_view toString(TransportKind kind) {
  switch (kind) {
    case TransportKind::Mpi: return "mpi";
    case TransportKind::Nccl: return "nccl";
    case TransportKind::Threads: return "threads";
    case TransportKind::CudaPeer: return "cuda-peer";
  }
  return "unknown";
}

bool runsInOneProcess(TransportKind kind) { return kind == TransportKind::Threads || kind == TransportKind::CudaPeer; }

bool builtWithCuda() {
#ifdef DDLSCALE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

int checkJob(const JobOptions& options, int mpiRanks) {
  const std::string transport(toString(options.transport));
  const bool gpu = options.transport == TransportKind::Nccl || options.transport == TransportKind::CudaPeer;
  if (gpu && !builtWithCuda())
    throw InvalidArgument("--transport", "'" + transport +
                                             "' needs a ddlrun built with CUDA and NCCL (cmake -DDDLSCALE_CUDA=ON); "
                                             "this one was built without them");
  if (!options.baseline.empty()) {
    const bool fits = (options.baseline == "mpi" && options.transport == TransportKind::Mpi) ||
                      (options.baseline == "nccl" && options.transport == TransportKind::Nccl);
    if (options.baseline != "mpi" && options.baseline != "nccl")
      throw InvalidArgument("--baseline", "'" + options.baseline + "' is not mpi or nccl");
    if (!fits)
      throw InvalidArgument("--baseline", "'" + options.baseline + "' runs on the buffers of --transport " +
                                              options.baseline + ", not " + transport);
  }
#ifdef DDLSCALE_WITH_CUDA
  if (gpu) {
    std::string why;
    if (cudaDevices(&why) == 0) throw InvalidArgument("--transport", "'" + transport + "' needs a CUDA GPU: " + why);
  }
#endif
  if (runsInOneProcess(options.transport)) {
    if (mpiRanks > 1)
      throw InvalidArgument("--transport", "'" + transport + "' runs every rank in one process: start ddlrun once with " +
                                               "--ranks N, not under mpirun -np " + std::to_string(mpiRanks));
    if (options.ranks < 1) throw InvalidArgument("--ranks", "give the number of ranks (at least 1) for --transport " + transport);
    if (options.ranks > kMaxRanksInOneProcess)
      throw InvalidArgument("--ranks", std::to_string(options.ranks) + " threads in one process is more than the " +
                                           std::to_string(kMaxRanksInOneProcess) + " this transport allows");
    return options.ranks;
  }
  if (options.ranks != 0)
    throw InvalidArgument("--ranks", "only with --transport threads or cuda-peer; under MPI, mpirun -np sets the ranks");
  return mpiRanks;
}

void requireGpuMemory(TransportKind transport, int ranksOnThisHost, double bytesPerRank, const std::string& field) {
#ifdef DDLSCALE_WITH_CUDA
  if (transport != TransportKind::Nccl && transport != TransportKind::CudaPeer) return;
  const int devices = cudaDevices();
  if (devices == 0) return;  // checkJob says so
  const int perGpu = (ranksOnThisHost + devices - 1) / devices;
  const double free = smallestFreeGpuMemoryBytes();
  if (bytesPerRank * perGpu > free)
    throw InvalidArgument(field, "needs about " + formatByteCount(bytesPerRank * perGpu) + " on each GPU (" +
                                     std::to_string(perGpu) + " rank(s) on each of " + std::to_string(devices) +
                                     "); the freest has " + formatByteCount(free));
#else
  (void)transport, (void)ranksOnThisHost, (void)bytesPerRank, (void)field;
#endif
}

int launchJob(const JobOptions& options, const std::function<int(RankContext&)>& job) {
  switch (options.transport) {
    case TransportKind::Mpi: return launchMpiJob(options, job);
    case TransportKind::Threads: {
      HostEngine engine;
      return runInProcess(options.ranks, engine, job);
    }
#ifdef DDLSCALE_WITH_CUDA
    case TransportKind::Nccl: return launchNcclJob(options, job);
    case TransportKind::CudaPeer: return launchCudaPeerJob(options, job);
#else
    case TransportKind::Nccl:
    case TransportKind::CudaPeer: break;
#endif
  }
  throw InvalidArgument("--transport", "not available in this build");
}

}  // namespace ddl
