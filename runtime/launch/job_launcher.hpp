#pragma once
// Starts the ranks of a ddlrun job on the chosen transport (launch/transport_table.hpp) and hands each its
// RankContext, after checking that the job fits this build, this machine and this launch.

#include <string>

#include "runtime/launch/transport_table.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {

bool builtWithCuda();  // whether the GPU transports (nccl, cuda-peer) are in this build

// Checks that the options fit this build, this machine (a GPU for the GPU transports) and this launch
// (mpirun's rank count); throws InvalidArgument naming the option otherwise. Returns the number of ranks the
// job will have.
int checkJob(const TransportEntry& transport, const JobOptions& options, int mpiRanks);

// InvalidArgument(field, ...) where a GPU transport's ranks on this machine would not find `bytesPerRank`
// free on their GPUs (ranks beyond the GPUs share them); nothing for host transports or without CUDA.
void requireGpuMemory(const TransportEntry& transport, int ranksOnThisHost, double bytesPerRank, const std::string& field);

// Runs `job` on every rank of this process and returns the largest exit status among them. MPI must be
// initialised. An InvalidArgument thrown by the ranks is rethrown here.
int launchJob(const TransportEntry& transport, const JobOptions& options, const RankJob& job);

}  // namespace ddl
