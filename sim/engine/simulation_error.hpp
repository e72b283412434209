#pragma once
// A simulation that could not run to its end: ranks waiting forever, or a failure inside an actor.
// ddlsim reports it and exits 1; it never aborts.

#include <stdexcept>
#include <string>

namespace ddl {

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ddl
