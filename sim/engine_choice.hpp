#pragma once
// Which engine simulates (--engine auto|message|step):
//
// - message: the reference, SimGrid itself, one actor per rank and one SimGrid communication per message;
// - step: sim/step_*.hpp over sim/fluid, the same per-rank rules over the same sharing equations in one
//   event loop, without actors (agreement: tests/sim/step_engine_test.cpp; speed: sim/fluid/README.md);
// - auto: the step engine, which runs everything the message engine does.

#include <string>
#include <string_view>

namespace ddl {

enum class SimulationEngine { Message, Step };
enum class EngineChoice { Auto, Message, Step };

// "auto", "message" or "step"; throws InvalidArgument(`field`, ...) for anything else.
EngineChoice engineChoiceNamed(std::string_view name, const std::string& field);
std::string_view toString(SimulationEngine engine);
SimulationEngine chooseEngine(EngineChoice choice);

// The --engine option's help, alike in every command that has it.
inline constexpr const char* kEngineHelp =
    "auto, message (SimGrid: an actor per rank, the reference) or step (the same rules and sharing in one event loop, "
    "faster; auto)";

}  // namespace ddl
