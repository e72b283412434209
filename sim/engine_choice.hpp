#pragma once
// Which engine simulates a collective (--engine auto|message|step):
//
// - message: the reference, SimGrid itself, one actor per rank and one SimGrid communication per message;
// - step: sim/step_*.hpp over sim/fluid, the same per-rank rules over the same sharing equations in one event loop, without
//   actors (measured 4x faster on a 100 MB ring; agreement: tests/sim/step_engine_test.cpp);
// - auto: step, except where the two are not yet known to agree: the double binary tree (alone or as an
//   inner allreduce) and schedules read from files: contention made the tree differ by up to 4.5% at 8
//   to 16 ranks (sim/fluid/README.md), which take the message engine.

#include <string>
#include <string_view>

#include "algorithms/collectives/algorithm.hpp"

namespace ddl {

enum class SimulationEngine { Message, Step };
enum class EngineChoice { Auto, Message, Step };

// "auto", "message" or "step"; throws InvalidArgument(`field`, ...) for anything else.
EngineChoice engineChoiceNamed(std::string_view name, const std::string& field);
std::string_view toString(SimulationEngine engine);

// The engine `choice` gives `algorithm` (null: a schedule file) with `options`.
SimulationEngine chooseEngine(EngineChoice choice, const AlgorithmDefinition* algorithm, const AlgorithmOptions& options);

}  // namespace ddl
