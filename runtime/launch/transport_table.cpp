#include "runtime/launch/transport_table.hpp"

#include <vector>

#include "common/invalid_argument.hpp"
#include "common/nearest_name.hpp"
#include "runtime/in_process/in_process_job.hpp"
#ifdef DDLSCALE_WITH_MPI
#include "runtime/mpi/mpi_job.hpp"
#endif
#ifdef DDLSCALE_WITH_CUDA
#include "runtime/cuda_peer/cuda_peer_job.hpp"
#include "runtime/nccl/nccl_job.hpp"
#endif

namespace ddl {
namespace {

// Null where this build lacks what the transport needs (checkJob says which).
#ifdef DDLSCALE_WITH_MPI
constexpr LaunchTransportJob kMpiJob = &launchMpiJob;
#else
constexpr LaunchTransportJob kMpiJob = nullptr;
#endif
#ifdef DDLSCALE_WITH_CUDA
constexpr LaunchTransportJob kNcclThreadsJob = &launchNcclThreadsJob;
constexpr LaunchTransportJob kCudaPeerJob = &launchCudaPeerJob;
#else
constexpr LaunchTransportJob kNcclThreadsJob = nullptr;
constexpr LaunchTransportJob kCudaPeerJob = nullptr;
#endif
#if defined(DDLSCALE_WITH_CUDA) && defined(DDLSCALE_WITH_MPI)
constexpr LaunchTransportJob kNcclJob = &launchNcclJob;
#else
constexpr LaunchTransportJob kNcclJob = nullptr;
#endif

constexpr TransportEntry kTransports[] = {
    {"mpi", "one rank per MPI process, host memory, MPI point-to-point (mpirun -np N)", false, false, "mpi", kMpiJob},
    {"nccl", "one rank per MPI process, one GPU each, NCCL point-to-point (mpirun -np N)", false, true, "nccl", kNcclJob},
    {"threads", "N ranks as threads of this process, host memory, memcpy (--ranks N)", true, false, "", &launchThreadsJob},
    {"cuda-peer", "N ranks as threads of this process on the visible GPUs, cudaMemcpyPeerAsync (--ranks N)", true, true, "",
     kCudaPeerJob},
    {"nccl-threads", "N ranks as threads of this process, one GPU each, NCCL point-to-point, no MPI (--ranks N)", true,
     true, "nccl", kNcclThreadsJob},
};

}  // namespace

std::span<const TransportEntry> transports() { return kTransports; }

namespace {

std::vector<std::string_view> names() {
  std::vector<std::string_view> names;
  for (const TransportEntry& entry : kTransports) names.push_back(entry.name);
  return names;
}

}  // namespace

std::string transportNames() { return listOfNames(names()); }

const TransportEntry& findTransport(const std::string& name) {
  for (const TransportEntry& entry : kTransports)
    if (entry.name == name) return entry;
  throw InvalidArgument("--transport", "'" + name + "' is not " + transportNames() + didYouMean(name, names()));
}

}  // namespace ddl
