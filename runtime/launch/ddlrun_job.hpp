#pragma once
// What ddlrun's main does once the command line has passed its checks: the job itself. A build with MPI
// runs it under MPI (ddlrun_job_under_mpi.cpp: MPI_Init and MPI_Finalize under a deadline, and between them
// a SilenceWatchdog that watches every wait on other ranks, so that a rank that stops answering ends the
// job, named, within --timeout-s). A build without MPI, for machines that have CUDA and NCCL alone, runs the
// transports of one process (threads, cuda-peer, nccl-threads) in this process (ddlrun_job_alone.cpp).

#include "runtime/launch/ddlrun_command.hpp"

namespace ddl {

// `launchRank` and `launchSize`: this process's rank and the job's size as mpirun or srun told it (0 and 1
// where no launcher started it). Returns the exit status: 0, 1 if a result was wrong, 2 for bad input, 3 if
// a rank failed.
int runJob(DdlrunCommand& command, int& argc, char**& argv, int launchRank, int launchSize);

}  // namespace ddl
