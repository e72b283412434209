#pragma once
// How a job on host memory reproduces its ranks' compute: `ddlrun train --host-compute busy|sleep`.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/compute/busy_host_compute_emulator.hpp"
#include "runtime/compute/sleeping_compute_emulator.hpp"

namespace ddl {

enum class HostCompute : std::uint8_t {
  Busy,   // work that occupies a core, contending with the transport as a GPU's backward pass does with NCCL
  Sleep,  // the cores left to the transport: compute that costs the host nothing
};

inline std::optional<HostCompute> hostComputeNamed(const std::string& name) {
  if (name == "busy") return HostCompute::Busy;
  if (name == "sleep") return HostCompute::Sleep;
  return std::nullopt;
}

inline std::unique_ptr<ComputeEmulator> makeHostComputeEmulator(HostCompute compute) {
  if (compute == HostCompute::Busy) return std::make_unique<BusyHostComputeEmulator>();
  return std::make_unique<SleepingComputeEmulator>();
}

}  // namespace ddl
