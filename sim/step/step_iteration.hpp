#pragma once
// simulateIteration on the step engine: the compute and communication of every GPU as two state machines
// per rank, doing what sim/simgrid/iteration_on_simgrid.cpp's two actors do, in the same order, over the same
// equations (sim/step/step_platform.hpp): the steps' phases (algorithms/training/iteration_steps.hpp) as
// executions on the rank's one compute core, each once the collective it waits for has ended; the steps'
// collectives one after another, each once the phase it is ready after has ended (and Horovod's tick has
// come, and the per-collective overhead is slept); and, while a rank's collective runs, an execution of
// priority s on the same core, so that compute beside communication runs 1/(1+s) as fast.
//
// Ranks that do the same thing are simulated once (sim/step/step_symmetry.hpp) where every bucket's schedule
// claims a translation the platform keeps, every rank computes alike (no effect drawn per rank), and no
// timeline is asked for (it would hold the simulated ranks' spans only).
//
// A ring whose ranks do not divide a bucket has blocks of two sizes and claims none: all its ranks are
// simulated, 2(P-1) messages each per bucket, which grows as the square of the GPUs (4096 Minsky GPUs: 458 s
// and 5.5 GB for one ResNet-50 iteration; 16,384 ranks would hold 32,766 steps each, about 174 GB). With
// BucketEvening::Allow, where no translation holds as given, each bucket whose schedule claims none is
// simulated with its elements rounded to the nearest count at which its algorithm claims one (a multiple
// of the GPUs, or of k times them: nccl-ring's channels), if that makes one hold and every such bucket has
// an element per block: every message then differs from its own by at most one element, and the result
// says by how much the buckets changed (evenedBucketChange).

#include <string>

#include "algorithms/training/iteration_effects.hpp"
#include "algorithms/training/iteration_timeline.hpp"
#include "sim/engine/iteration_simulation.hpp"
#include "sim/step/step_collective.hpp"
#include "topologies/platform_description.hpp"

namespace ddl::step {

enum class BucketEvening { Forbid, Allow };

// ddlsim's choice (eveningFor): evening where it changes no bucket by more than kEvenedBucketTolerance of
// its elements, which moved no iteration measured by more than 1e-5 of its time (tests/sim/step_symmetry_test.cpp
// holds it to 1e-4; sim/README.md has the measurements), or, whatever the change, where simulating the
// buckets as given would simulate more than kExactStepsLimit steps of one bucket at once (its program on
// every rank): tens of seconds of this machine's time per bucket, and 670 MB at sim/sweep/simulation_memory.hpp's
// 160 bytes a step (a flat ring from 1,449 GPUs on, DDL over DGX H100's grid from 16,384). The change is
// then reported, not bounded. Otherwise every bucket is simulated as given, exactly.
inline constexpr double kEvenedBucketTolerance = 1e-3;
inline constexpr double kExactStepsLimit = 1 << 22;
BucketEvening eveningFor(const IterationCollectives& buckets);

// The ranks simulateIteration simulates (no timeline): one period of them, or all.
int simulatedRanks(const IterationCollectives& buckets, const PlatformDescription& platform,
                   const IterationEffects& effects, BucketEvening evening);

IterationSimulation simulateIteration(const IterationPlan& plan, const IterationCollectives& buckets,
                                      const PlatformDescription& platform, const IterationEffects& effects = {},
                                      IterationTimeline* timeline = nullptr, const std::string& group = "",
                                      RankSymmetryUse symmetry = RankSymmetryUse::Exploit,
                                      BucketEvening evening = BucketEvening::Forbid);

}  // namespace ddl::step
