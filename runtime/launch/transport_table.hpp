#pragma once
// Every transport ddlrun can run a job on, in one table, as algorithms are in theirs: adding a transport is
// one folder (its Transport, World and launcher) and one line in transport_table.cpp.

#include <span>
#include <string>
#include <string_view>

#include "runtime/rank_context.hpp"

namespace ddl {

using LaunchTransportJob = int (*)(const JobOptions& options, const RankJob& job);

struct TransportEntry {
  std::string_view name;     // --transport NAME
  std::string_view summary;  // for --help and messages
  bool inOneProcess;         // every rank a thread of one ddlrun (--ranks N), not one MPI process each
  bool onGpus;               // its buffers are in GPU memory: needs CUDA, NCCL and a GPU
  std::string_view library;  // whose own collectives RankContext::library offers ("mpi", "nccl"), or ""
  LaunchTransportJob launch;  // null where this build lacks it (built without CUDA, or without MPI)
};

std::span<const TransportEntry> transports();

// The entry named `name`; InvalidArgument("--transport", ...) listing the known ones otherwise.
const TransportEntry& findTransport(const std::string& name);

// "mpi, nccl, threads, cuda-peer or nccl-threads"
std::string transportNames();

}  // namespace ddl
