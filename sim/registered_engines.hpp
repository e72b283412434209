#pragma once
// The simulation engines ddlsim can run, by name, in one table as SimGrid keeps its collective algorithms:
// adding an engine is one implementation of sim/engine/engine.hpp and one line in registered_engines.cpp.
// --engine names one of them, or "auto": the step engine, which runs everything the SimGrid one does,
// faster (sim/step/fluid/README.md).

#include <string>
#include <string_view>
#include <vector>

#include "sim/engine/engine.hpp"

namespace ddl {

// SimGrid's engine, the reference: in a build with SimGrid (DDLSCALE_SIMGRID) only.
inline constexpr std::string_view kSimGridEngineName = "message";

// In the order --help lists them; the first is the reference the others are checked against (where it is
// built).
const std::vector<const Engine*>& registeredEngines();

// What "auto" runs: the step engine.
const Engine& automaticEngine();

// The engine `name` names ("auto" or a registered name); InvalidArgument(`field`, ...) naming the known
// ones, and the nearest, for anything else, and saying so where it is SimGrid's in a build without it.
const Engine& engineNamed(std::string_view name, const std::string& field);

// The --engine option's help, alike in every command that has it.
std::string engineHelp();

}  // namespace ddl
