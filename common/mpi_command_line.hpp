#pragma once
// Whether the ranks of an MPI job were started with one command line. ddlrun and ddlsim's MPI sweep check
// their options on each rank and trust that every rank finds the same; a job started with several (mpirun's
// "-np 1 ddlrun bench -b 1K : -np 1 ddlrun bench -b 4K", or a script that builds each rank's line) would
// otherwise run different experiments against each other: messages matched to the wrong steps, an Open MPI
// MPI_ERR_TRUNCATE abort with no word of ours, or results merged from two sweeps in silence.

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ddl {

// Waits until `request` completes, under the caller's deadline (a watchdog, or a poll that ends the job
// naming `what`): no wait on another rank is without one.
using MpiWait = std::function<void(MPI_Request& request, const char* what)>;

// Every rank calls it with its own arguments (after the program's name). Returns, on every rank, nothing if
// all agree; otherwise a message naming rank 0's arguments and, on rank 0, those of the lowest rank that
// differs. Three small collectives, and one message more on a disagreement.
std::optional<std::string> commandLineDisagreement(MPI_Comm communicator, const std::vector<std::string>& arguments,
                                                   const MpiWait& wait);

}  // namespace ddl
