// The host's compute emulators: phases end in order, each reported where it ended; the busy one really
// occupies a core for its phases (the CPU time of the process grows by about their length), the sleeping
// one does not. No assertion on how long a phase takes: a loaded machine would make that flaky, and the
// point of the busy emulator is that it takes longer when something else runs.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>

#include "runtime/compute/host_compute.hpp"

namespace ddl {
namespace {

double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Runs phases of 10, 0, 30 and 20 ms; returns the CPU seconds they took.
double runPhases(ComputeEmulator& compute) {
  compute.calibrate();
  const double before = processCpuSeconds();
  compute.start({0.01, 0, 0.03, 0.02});
  compute.waitForPhase(1);
  EXPECT_GE(compute.phaseEnd(1), compute.phaseEnd(0));
  compute.waitForPhase(3);
  for (std::size_t phase = 1; phase < 4; ++phase) EXPECT_GE(compute.phaseEnd(phase), compute.phaseEnd(phase - 1));
  EXPECT_GT(compute.phaseEnd(0), 0);
  return processCpuSeconds() - before;
}

TEST(HostCompute, BusyPhasesOccupyACoreForTheirLength) {
  BusyHostComputeEmulator compute;
  const double cpu = runPhases(compute);
  EXPECT_GT(compute.unitsPerSecond(), 0);
  // 60 ms of work as calibrated: on a core of its own, 60 ms of CPU; where the calibration shared the core,
  // as much less as it got. A sixth of it even so: a sleep takes none.
  EXPECT_GE(cpu, 0.01) << "busy compute took " << cpu << " s of CPU";
  EXPECT_EQ(compute.description(), "busy host cores");
}

TEST(HostCompute, SleepingPhasesLeaveTheCoresAlone) {
  SleepingComputeEmulator compute;
  const auto from = std::chrono::steady_clock::now();
  const double cpu = runPhases(compute);
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count(), 0.06);
  EXPECT_LT(cpu, 0.02) << "sleeping compute took " << cpu << " s of CPU";
  EXPECT_DOUBLE_EQ(compute.phaseEnd(3), 0.06);
}

TEST(HostCompute, ABusyEmulatorCanBeRestartedAndAsksForPhasesItRan) {
  BusyHostComputeEmulator compute;
  compute.start({0.001});  // calibrates first
  compute.waitForPhase(0);
  compute.start({0.001, 0.001});  // waits for nothing: the last start is done
  compute.waitForPhase(1);
  EXPECT_THROW(compute.waitForPhase(2), std::out_of_range);
}

TEST(HostCompute, NamedAsTheFlagNamesThem) {
  EXPECT_EQ(hostComputeNamed("busy"), HostCompute::Busy);
  EXPECT_EQ(hostComputeNamed("sleep"), HostCompute::Sleep);
  EXPECT_FALSE(hostComputeNamed("spin"));
  EXPECT_EQ(makeHostComputeEmulator(HostCompute::Sleep)->description(), "sleep");
}

}  // namespace
}  // namespace ddl
