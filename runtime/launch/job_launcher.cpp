#include "runtime/launch/job_launcher.hpp"

#include <algorithm>

#include "common/human_units.hpp"
#include "common/invalid_argument.hpp"
#include "common/launcher_environment.hpp"
#include "common/machine_memory.hpp"
#ifdef DDLSCALE_WITH_CUDA
#include "runtime/cuda/cuda_devices.hpp"
#endif

namespace ddl {
namespace {

// Each rank is a thread with its own buffers; beyond this, use MPI across processes.
constexpr int kMaxRanksInOneProcess = 1024;

}  // namespace

bool builtWithCuda() {
#ifdef DDLSCALE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

void prepareProcessForGpus() {
#ifdef DDLSCALE_WITH_CUDA
  widenCudaWorkQueues();
#endif
}

bool builtWithMpi() {
#ifdef DDLSCALE_WITH_MPI
  return true;
#else
  return false;
#endif
}

int checkJob(const TransportEntry& transport, const JobOptions& options, int mpiRanks) {
  const std::string name(transport.name);
  if (!transport.launch) {
    const bool needsMpi = !transport.inOneProcess;
    std::string missing;
    if (transport.onGpus && !builtWithCuda()) missing = "CUDA and NCCL (cmake -DDDLSCALE_CUDA=ON)";
    if (needsMpi && !builtWithMpi()) missing += std::string(missing.empty() ? "" : " and ") + "MPI (cmake -DDDLSCALE_MPI=ON)";
    throw InvalidArgument("--transport", "'" + name + "' needs a ddlrun built with " + missing + "; this one was built without");
  }
#ifdef DDLSCALE_WITH_CUDA
  if (transport.onGpus) requireCudaDevice(transport.name);
  if (transport.onGpus && transport.inOneProcess && transport.library == "nccl" && options.ranks > cudaDevices())
    throw InvalidArgument("--ranks", std::to_string(options.ranks) + " ranks for --transport " + name + " and " +
                                         std::to_string(cudaDevices()) +
                                         " GPUs visible: NCCL takes one GPU per rank (cuda-peer lets ranks share one)");
#endif
  if (transport.inOneProcess) {
    if (mpiRanks > 1)
      throw InvalidArgument("--transport", "'" + name + "' runs every rank in one process: start ddlrun once with " +
                                               "--ranks N, not under mpirun -np " + std::to_string(mpiRanks));
    if (options.ranks < 1) throw InvalidArgument("--ranks", "give the number of ranks (at least 1) for --transport " + name);
    if (options.ranks > kMaxRanksInOneProcess)
      throw InvalidArgument("--ranks", std::to_string(options.ranks) + " threads in one process is more than the " +
                                           std::to_string(kMaxRanksInOneProcess) + " this transport allows");
    return options.ranks;
  }
  if (options.ranks != 0)
    throw InvalidArgument("--ranks", "only with a transport that runs every rank in one process (threads, cuda-peer, "
                                     "nccl-threads); "
                                     "under MPI, mpirun -np sets the ranks");
  return mpiRanks;
}

void requireGpuMemory(const TransportEntry& transport, int ranksOnThisHost, double bytesPerRank, const std::string& field) {
#ifdef DDLSCALE_WITH_CUDA
  if (!transport.onGpus) return;
  const int devices = cudaDevices();
  if (devices == 0) return;  // checkJob says so
  const int perGpu = (ranksOnThisHost + devices - 1) / devices;
  const double free = smallestFreeGpuMemoryBytes(gpusOfThisProcess(transport.inOneProcess, ranksOnThisHost, devices, launcherLocalRank()));
  if (bytesPerRank * perGpu > free)
    throw InvalidArgument(field, "needs about " + formatBytes(bytesPerRank * perGpu) + " on each GPU (" +
                                     std::to_string(perGpu) + " rank(s) on each of " + std::to_string(devices) +
                                     "); the one with least free memory has " + formatBytes(free));
#else
  (void)transport, (void)ranksOnThisHost, (void)bytesPerRank, (void)field;
#endif
}

std::vector<int> gpusOfThisProcess(bool inOneProcess, int ranksOnThisHost, int devices, int localRank) {
  std::vector<int> gpus;
  if (devices <= 0) return gpus;
  if (!inOneProcess) return {localRank % devices};
  for (int gpu = 0; gpu < std::min(ranksOnThisHost, devices); ++gpu) gpus.push_back(gpu);
  return gpus;
}

int launchJob(const TransportEntry& transport, const JobOptions& options, const RankJob& job) {
  if (!transport.launch) throw InvalidArgument("--transport", "'" + std::string(transport.name) + "' is not in this build");
  return transport.launch(options, job);
}

}  // namespace ddl
