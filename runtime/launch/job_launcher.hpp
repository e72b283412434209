#pragma once
// Starts the ranks of a ddlrun job on the chosen transport (launch/transport_table.hpp) and hands each its
// RankContext, after checking that the job fits this build, this machine and this launch.

#include <string>
#include <vector>

#include "runtime/launch/transport_table.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {

bool builtWithCuda();  // whether the GPU transports (nccl, cuda-peer, nccl-threads) are in this build
bool builtWithMpi();   // whether the transports of one MPI process per rank (mpi, nccl) are in this build

// What a process that may run GPU ranks sets before its first CUDA call (widenCudaWorkQueues); nothing in a
// build without CUDA.
void prepareProcessForGpus();

// Checks that the options fit this build, this machine (a GPU for the GPU transports) and this launch
// (mpirun's rank count); throws InvalidArgument naming the option otherwise. Returns the number of ranks the
// job will have.
int checkJob(const TransportEntry& transport, const JobOptions& options, int mpiRanks);

// InvalidArgument(field, ...) where a GPU transport's ranks on this machine would not find `bytesPerRank`
// free on their GPUs (ranks beyond the GPUs share them); nothing for host transports or without CUDA. Asks
// only this process's GPUs (gpusOfThisProcess): asking every visible one made a CUDA context on each, in
// every process, 64 on a node of 8 GPUs and 8 ranks.
void requireGpuMemory(const TransportEntry& transport, int ranksOnThisHost, double bytesPerRank, const std::string& field);

// The GPUs this process's ranks run on, of `devices` visible: every rank of a one-process transport on
// GPU rank % devices (cuda-peer), so the first min(ranks, devices); one rank per process on GPU
// localRank % devices (nccl, as NcclTransport chooses it).
std::vector<int> gpusOfThisProcess(bool inOneProcess, int ranksOnThisHost, int devices, int localRank);

// Runs `job` on every rank of this process and returns the largest exit status among them. MPI must be
// initialised. An InvalidArgument thrown by the ranks is rethrown here.
int launchJob(const TransportEntry& transport, const JobOptions& options, const RankJob& job);

}  // namespace ddl
