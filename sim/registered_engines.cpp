#include "sim/registered_engines.hpp"

#include "common/invalid_argument.hpp"
#include "common/nearest_name.hpp"
#include "sim/step/step_engine.hpp"
#ifdef DDLSCALE_WITH_SIMGRID
#include "sim/simgrid/simgrid_engine.hpp"
#endif

namespace ddl {
namespace {

// What "auto" chooses.
constexpr std::string_view kAutomaticEngine = "step";

}  // namespace

const std::vector<const Engine*>& registeredEngines() {
  static const StepEngine step;
#ifdef DDLSCALE_WITH_SIMGRID
  static const SimGridEngine simgrid;
  static const std::vector<const Engine*> engines{&simgrid, &step};
#else
  static const std::vector<const Engine*> engines{&step};
#endif
  return engines;
}

const Engine& automaticEngine() { return engineNamed(kAutomaticEngine, "auto"); }

const Engine& engineNamed(std::string_view name, const std::string& field) {
  const std::string_view wanted = name == "auto" ? kAutomaticEngine : name;
  std::vector<std::string_view> names{"auto"};
  for (const Engine* engine : registeredEngines()) {
    if (engine->name() == wanted) return *engine;
    names.push_back(engine->name());
  }
  if (wanted == kSimGridEngineName)
    throw InvalidArgument(field, "'" + std::string(name) + "' (SimGrid's engine) needs a ddlsim built with SimGrid "
                                 "(cmake -DDDLSCALE_SIMGRID=ON); this one was built without");
  throw InvalidArgument(field, "'" + std::string(name) + "' is not " + listOfNames(names) + didYouMean(name, names));
}

std::string engineHelp() {
  std::string help = "auto (" + std::string(kAutomaticEngine) + ")";
  const std::vector<const Engine*>& engines = registeredEngines();
  for (std::size_t e = 0; e < engines.size(); ++e)
    help += std::string(e + 1 == engines.size() ? " or " : ", ") + std::string(engines[e]->name()) + " (" +
            std::string(engines[e]->description()) + ")";
  return help;
}

}  // namespace ddl
