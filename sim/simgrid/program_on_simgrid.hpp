#pragma once
// Runs one rank's program inside a SimGrid actor, under the rules of ProgramExecution: each posted step
// becomes an asynchronous put or get on the FIFO mailbox of its stream, each reduction an execution of
// bytes·γ seconds on the rank's GPU, and the actor waits for whichever ends first.

#include "algorithms/schedule/program.hpp"
#include "sim/simgrid/simulated_platform.hpp"

namespace ddl {

// Returns normally once every step completed. Must run inside an actor on the rank's host. Each byte its
// messages send costs `wireBytesPerByte` on their links (CollectiveSpec::wireBytesPerByte).
void runProgramOnSimGrid(const Program& program, SimulatedPlatform& platform, int elementBytes, double wireBytesPerByte);

// Every pair of ranks that `programs` send between, connected on `platform`.
void connectProgramPeers(const Program& program, SimulatedPlatform& platform);

}  // namespace ddl
