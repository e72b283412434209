#pragma once
// Compute emulated on the host by sleeping: each phase ends at its time on the clock, and the thread
// sleeps until then, leaving the cores to the transport as a GPU's compute would leave the host's. Nothing
// contends with communication, so a measured overlap costs nothing (BusyHostComputeEmulator measures it).

#include <chrono>
#include <thread>

#include "runtime/compute/compute_emulator.hpp"

namespace ddl {

class SleepingComputeEmulator final : public ComputeEmulator {
 public:
  void start(const std::vector<double>& phaseSeconds) override {
    ends_.clear();
    double end = 0;
    for (double seconds : phaseSeconds) ends_.push_back(end += seconds);
    start_ = std::chrono::steady_clock::now();
  }
  void waitForPhase(std::size_t phase) override {
    std::this_thread::sleep_until(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(ends_.at(phase))));
  }
  double phaseEnd(std::size_t phase) const override { return ends_.at(phase); }
  std::string description() const override { return "sleep"; }

 private:
  std::chrono::steady_clock::time_point start_;
  std::vector<double> ends_;  // seconds since start_
};

}  // namespace ddl
