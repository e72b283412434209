#pragma once
// What the PyTorch backend needs of MPI besides libddlscale: the job itself (initialised on first use, with
// the threads libddlscale runs its collectives on, and finalised at exit only if it was ours), the MPI
// communicator of a torch group's ranks, and where rank 0's store listens, so that a job started by mpirun
// needs no MASTER_ADDR.

#include <mpi.h>

#include <string>
#include <vector>

namespace ddl::torch_backend {

struct MpiWorld {
  int rank = 0;
  int size = 1;
  bool threadMultiple = false;  // whether collectives can run while the caller computes
};

// Initialises MPI (MPI_THREAD_MULTIPLE asked) unless it already is, and says where this process stands.
MpiWorld initialiseMpi();
// MPI_Finalize, if initialiseMpi started MPI and nothing finalised it since.
void finaliseMpiIfOurs();

// A communicator of the world's ranks `worldRanks`, in that order, made by those ranks alone
// (MPI_Comm_create_group), so that torch's ranks outside a new group need not take part. The caller frees
// it. Throws std::invalid_argument naming a rank out of range.
MPI_Comm communicatorOf(const std::vector<int>& worldRanks);

// This host's IPv4 interface addresses with their prefix lengths ("10.99.0.1/24"), loopback last.
std::vector<std::string> interfaceAddresses();

// Given the addresses of rank 0's interfaces and this rank's own, the one this rank reaches rank 0 by: the
// loopback where both ranks see the same interfaces (one host, one network namespace), else the first of rank
// 0's addresses on a subnet of one of this rank's, else rank 0's first address that is not loopback. Throws
// std::runtime_error where rank 0 has none.
std::string addressToReach(const std::vector<std::string>& rootAddresses, const std::vector<std::string>& ownAddresses);

// Collective over MPI_COMM_WORLD: rank 0 gives the port its store listens on; every rank gets the address it
// reaches rank 0 by and that port.
struct StoreAddress {
  std::string host;
  int port = 0;
};
StoreAddress shareStoreAddress(int rootPort);

}  // namespace ddl::torch_backend
