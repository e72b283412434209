#pragma once
// The compute of a training iteration, reproduced where a GPU would spend it, so that communication
// overlaps it for real: the host lets the time pass (a CPU job's compute would occupy the cores the
// transport needs; a GPU's does not), a GPU runs kernels that last exactly that long.

#include <cstddef>
#include <vector>

namespace ddl {

class ComputeEmulator {
 public:
  virtual ~ComputeEmulator() = default;
  // Starts phases of compute back to back, each lasting the given seconds, and returns at once.
  virtual void start(const std::vector<double>& phaseSeconds) = 0;
  // Blocks until phase `phase` of the last start (and so every phase before it) has finished.
  virtual void waitForPhase(std::size_t phase) = 0;
};

}  // namespace ddl
