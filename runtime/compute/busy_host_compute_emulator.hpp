#pragma once
// Compute emulated on the host by work: each phase is an amount of arithmetic over a few MiB of memory,
// sized by calibrate() to last the phase's time on a core of its own. A thread of the rank's own does it,
// so the rank's transport goes on beside it, as NCCL's kernels go on beside a backward pass; and as there,
// the two contend (for the cores, the caches and the memory bandwidth), so a phase that overlaps an
// allreduce takes longer than alone. `ddlrun train` measures by how much (measured_effects.hpp).

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/compute/compute_emulator.hpp"

namespace ddl {

class BusyHostComputeEmulator final : public ComputeEmulator {
 public:
  BusyHostComputeEmulator();
  ~BusyHostComputeEmulator() override;
  BusyHostComputeEmulator(const BusyHostComputeEmulator&) = delete;
  BusyHostComputeEmulator& operator=(const BusyHostComputeEmulator&) = delete;

  // Times the work on the calling thread, once the last start's phases have finished: the unit count is
  // doubled until one run takes 20 ms, and the rate is the median of five runs of that count. A start
  // before any calibrate calibrates first.
  void calibrate() override;
  // Waits for the last start's phases to finish first, if they have not.
  void start(const std::vector<double>& phaseSeconds) override;
  void waitForPhase(std::size_t phase) override;
  double phaseEnd(std::size_t phase) const override;
  std::string description() const override { return "busy host cores"; }
  // What calibrate measured: units of work per second, alone.
  double unitsPerSecond() const { return unitsPerSecond_; }

 private:
  using Clock = std::chrono::steady_clock;
  void work();  // the compute thread
  void spend(std::int64_t units);

  std::vector<float> accumulators_, addends_;
  std::size_t cursor_ = 0;  // where the next unit works in the arrays
  double unitsPerSecond_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable phaseStarted_, phaseEnded_;
  std::vector<std::int64_t> phaseUnits_;  // the last start's phases
  std::vector<Clock::time_point> phaseEnds_;
  std::size_t nextPhase_ = 0;  // the first not finished
  Clock::time_point started_;
  bool stopping_ = false;
  std::thread worker_;  // last: it uses everything above
};

}  // namespace ddl
