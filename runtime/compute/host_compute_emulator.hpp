#pragma once
// Compute emulated on the host: each phase ends at its time on the clock, and the thread sleeps until
// then, leaving the cores to the transport as a GPU's compute would.

#include <chrono>
#include <thread>

#include "runtime/compute/compute_emulator.hpp"

namespace ddl {

class HostComputeEmulator final : public ComputeEmulator {
 public:
  void start(const std::vector<double>& phaseSeconds) override {
    const auto now = std::chrono::steady_clock::now();
    ends_.clear();
    double end = 0;
    for (double seconds : phaseSeconds) {
      end += seconds;
      ends_.push_back(now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(end)));
    }
  }
  void waitForPhase(std::size_t phase) override { std::this_thread::sleep_until(ends_.at(phase)); }

 private:
  std::vector<std::chrono::steady_clock::time_point> ends_;
};

}  // namespace ddl
