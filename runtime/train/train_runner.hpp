#pragma once
// `ddlrun train SCENARIO`: the scenario's training iteration run for real on the job's ranks, one point
// per algorithm. Gradient buffers have the model's sizes and each bucket's allreduce runs on them over the
// transport as soon as the emulated backward pass has produced its gradients; compute takes the model's
// measured time (scaled by --compute-scale, so that a CPU cluster need not wait for P100-length
// iterations) where the rank's ComputeEmulator spends it, so communication overlaps it for real (and on
// host transports contends with it, --host-compute busy). Results use ddlsim's schema, point for point,
// with the effects the simulator models as measured here (measured_effects.hpp): each rank's compute
// alone, measured once per job before the algorithms, and beside its allreduces.

#include <string>

#include "runtime/program_runner.hpp"
#include "runtime/rank_context.hpp"

namespace ddl {

struct TrainOptions {
  std::string scenario;
  double computeScale = 1;
  int iterations = 5;
  int warmup = 1;
  bool json = false;
  std::string out;
  std::string configuration;  // the points' label; the scenario's name if empty
  std::string transport;      // --transport, for the results
  std::string trace;          // --trace: a Chrome trace of each algorithm's last timed iteration
  HostCompute hostCompute = HostCompute::Busy;  // --host-compute, on host transports
  RunOptions run;
};

struct Scenario;

// Every rank calls it with the scenario of options.scenario, loaded; returns the exit status (1 if a
// checked allreduce was wrong).
int runTrain(const Scenario& scenario, const TrainOptions& options, RankContext& context);

}  // namespace ddl
