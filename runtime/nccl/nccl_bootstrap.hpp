#pragma once
// How the ranks of an NCCL job find each other, and end together when one fails: one MPI process per rank
// (nccl_mpi_bootstrap.hpp, under mpirun), or one thread per rank of a single process (nccl_threads_job.cpp,
// for machines without MPI). NcclTransport asks nothing else of the job around it.

#include <nccl.h>

#include <memory>
#include <string>

#include "runtime/transport.hpp"

namespace ddl {

class NcclBootstrap {
 public:
  virtual ~NcclBootstrap() = default;

  virtual Rank rank() const = 0;
  virtual int size() const = 0;
  // The GPU this rank runs on, of `devices` visible. Throws TransportError where two ranks of the job on this
  // machine would share one: NCCL refuses that inside ncclCommInitRank with a bare "invalid usage".
  virtual int device(int devices) = 0;
  // Rank 0's unique id, on every rank; every rank calls it together.
  virtual ncclUniqueId uniqueId() = 0;

  // A blocking wait on the other ranks, announced to whatever watches the job for silence (the MPI
  // watchdog) until the returned object is destroyed; nullptr where nothing watches. `everyRankWaitsToo`:
  // the wait is a collective, long only while every rank waits in it too (NCCL's setup, its own collectives).
  class Waiting {
   public:
    virtual ~Waiting() = default;
  };
  virtual std::unique_ptr<Waiting> waitingIn(const char* what, bool everyRankWaitsToo) = 0;

  // Prints `message` for this rank and ends the whole job with status 3: the others would wait for it forever.
  [[noreturn]] virtual void endJob(const std::string& message) = 0;
};

}  // namespace ddl
