#pragma once
// `ddlrun train SCENARIO`: the scenario's training iteration run for real on the job's ranks, one point
// per algorithm. Gradient buffers have the model's sizes and each bucket's allreduce runs on them over the
// transport; compute is emulated by letting its measured time pass (scaled by --compute-scale so a CPU
// cluster need not wait for P100-length iterations), so communication overlaps it as on a GPU, whose
// compute does not occupy the host's cores. Results use ddlsim's schema, point for point.

#include <mpi.h>

#include <string>

#include "runtime/program_runner.hpp"

namespace ddl {

struct TrainOptions {
  std::string scenario;
  double computeScale = 1;
  int iterations = 5;
  int warmup = 1;
  bool json = false;
  std::string out;
  RunOptions run;
};

// Every rank calls it; returns the exit status (1 if a checked allreduce was wrong).
int runTrain(const TrainOptions& options, MPI_Comm communicator);

}  // namespace ddl
