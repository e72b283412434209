#pragma once
// How large a message Open MPI sends between two ranks of one machine without a handshake: its
// shared-memory transport (BTL vader in Open MPI 4, sm in 5) copies a message of up to its eager limit
// into the receiver's queue at once, while a larger one waits for the receiver to match it (a
// rendezvous). On this machine kind the handshake costs more than three eager messages: one exchange of
// 4040 bytes took 0.78 us and one of 4056 bytes 2.73 us (analysis/results/2026-12-04-runtime-eager-pieces).

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace ddl {

// The largest payload the shared-memory BTL sends eagerly: its eager limit, read through MPI_T, less
// the headers that travel in the same fragment (kEagerHeaderBytes). 0 where the MPI library names no such
// limit (another library, or another Open MPI transport between the ranks).
std::size_t sharedMemoryEagerPayload();

// The headers Open MPI's ob1 and the BTL put in an eager fragment: measured between 40 and 56 bytes
// (4040 bytes went eagerly under a 4096-byte limit, 4056 did not); rounded up.
constexpr std::size_t kEagerHeaderBytes = 64;

// For each rank of `communicator`, whether it shares this rank's memory (MPI_COMM_TYPE_SHARED). Collective.
std::vector<bool> ranksSharingMemory(MPI_Comm communicator);

}  // namespace ddl
