#pragma once
// How the ranks of a job that knows only its rank, its size and rank 0's address connect, one TCP
// connection between every two of them.
//
// Rank 0 listens at the address. Every other rank opens a listener of its own (a port the system picks),
// connects to rank 0 and says who it is: the job's size as it sees it, its rank and its port. Once every
// rank has come, rank 0 checks that they agree (one size, every rank once) and answers each with the table
// of the ranks' addresses (as rank 0 saw them connect) and a token of this job, or with what was wrong, so
// that every rank fails with the same message. Then rank r connects to ranks 1..r-1 and accepts ranks
// r+1..P-1, each connection opening with the token and the rank, so that a stray connection (another job
// on a port used again) is dropped, not taken for a peer. A rank's connection to rank 0 is the one it came
// in on. It is NCCL's bootstrap in outline (a root, a table of listeners, then the ranks' own links),
// without a unique id passed out of band: the address is the id.

#include <vector>

#include "common/rank.hpp"
#include "runtime/tcp/tcp_socket.hpp"

namespace ddl::tcp {

// The connection to each rank (none, invalid, at `rank` itself). Throws InvalidArgument (field "size" or
// "rank") when the ranks disagree, on every rank alike; TransportError when a rank does not come by the
// deadline or a connection fails. On rank 0, `rootListener` is the listener at `root` if the caller opened
// it (a test that lets the system pick rank 0's port); otherwise rank 0 opens it.
std::vector<Socket> connectMesh(Rank rank, int size, const Endpoint& root, Clock::time_point deadline,
                                Listener* rootListener = nullptr);

}  // namespace ddl::tcp
