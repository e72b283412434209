#pragma once
// Starts the ranks of a ddlrun job on the chosen transport and hands each its RankContext:
//
//   mpi        one rank per MPI process, host memory, MPI point-to-point        (mpirun -np N ddlrun ...)
//   nccl       one rank per MPI process, one GPU each, NCCL point-to-point      (mpirun -np N ddlrun ...)
//   threads    N ranks as threads of this process, host memory, memcpy          (ddlrun ... --ranks N)
//   cuda-peer  N ranks as threads of this process on the visible GPUs (several on one GPU if need be),
//              cudaMemcpyPeerAsync                                              (ddlrun ... --ranks N)

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/rank_context.hpp"

namespace ddl {

enum class TransportKind { Mpi, Nccl, Threads, CudaPeer };

std::optional<TransportKind> parseTransportKind(std::string_view name);
std::string_view toString(TransportKind kind);
bool runsInOneProcess(TransportKind kind);  // threads and cuda-peer
bool builtWithCuda();                        // whether nccl and cuda-peer are in this build

class SilenceWatchdog;

struct JobOptions {
  TransportKind transport = TransportKind::Mpi;
  int ranks = 0;         // in-process transports: how many ranks
  std::string baseline;  // "", "mpi" (transport mpi) or "nccl" (transport nccl)
  // The MPI and NCCL jobs' watchdog, owned by the caller: every wait on other ranks is watched by it.
  SilenceWatchdog* watchdog = nullptr;
};

// Checks that the options fit this build, this machine (a GPU for the GPU transports) and this launch
// (mpirun's rank count); throws InvalidArgument naming the option otherwise. Returns the number of ranks the
// job will have.
int checkJob(const JobOptions& options, int mpiRanks);

// InvalidArgument(field, ...) where a GPU transport's ranks on this machine would not find `bytesPerRank`
// free on their GPUs (ranks beyond the GPUs share them); nothing for host transports or without CUDA.
void requireGpuMemory(TransportKind transport, int ranksOnThisHost, double bytesPerRank, const std::string& field);

// Runs `job` on every rank of this process and returns the largest exit status among them. MPI must be
// initialised. An InvalidArgument thrown by the ranks is rethrown here.
int launchJob(const JobOptions& options, const std::function<int(RankContext&)>& job);

}  // namespace ddl
