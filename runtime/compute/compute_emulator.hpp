#pragma once
// The compute of a training iteration, reproduced where a GPU would spend it, so that communication
// overlaps it for real. On the host, either work that occupies a core for the phase's time as measured
// alone, so that compute and the transport contend for the cores as a backward pass and NCCL contend for a
// GPU (BusyHostComputeEmulator), or a sleep that leaves the cores to the transport
// (SleepingComputeEmulator); on a GPU, kernels that last exactly that long (GpuComputeEmulator).

#include <cstddef>
#include <string>
#include <vector>

namespace ddl {

class ComputeEmulator {
 public:
  virtual ~ComputeEmulator() = default;
  // Measures what the phases' times mean on this rank, where that needs measuring; every rank calls it
  // together, with nothing else running, before the first start.
  virtual void calibrate() {}
  // Starts phases of compute back to back, each lasting the given seconds (alone), and returns at once.
  virtual void start(const std::vector<double>& phaseSeconds) = 0;
  // Blocks until phase `phase` of the last start (and so every phase before it) has finished.
  virtual void waitForPhase(std::size_t phase) = 0;
  // When phase `phase` of the last start finished, in seconds since that start; once waitForPhase(phase)
  // has returned.
  virtual double phaseEnd(std::size_t phase) const = 0;
  // How compute is reproduced, for the results: "busy host cores", "sleep", "GPU timer kernels".
  virtual std::string description() const = 0;
};

}  // namespace ddl
