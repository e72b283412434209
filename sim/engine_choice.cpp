#include "sim/engine_choice.hpp"

#include "common/invalid_argument.hpp"

namespace ddl {

EngineChoice engineChoiceNamed(std::string_view name, const std::string& field) {
  if (name == "auto") return EngineChoice::Auto;
  if (name == "message") return EngineChoice::Message;
  if (name == "step") return EngineChoice::Step;
  throw InvalidArgument(field, "'" + std::string(name) + "' is not auto, message or step");
}

std::string_view toString(SimulationEngine engine) { return engine == SimulationEngine::Step ? "step" : "message"; }

SimulationEngine chooseEngine(EngineChoice choice) {
  return choice == EngineChoice::Message ? SimulationEngine::Message : SimulationEngine::Step;
}

}  // namespace ddl
