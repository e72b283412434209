#pragma once
// A schedule file run as data: `ddlsim collective --schedule FILE` simulates it and `ddlrun bench --schedule
// FILE` runs it, the same file in both, as MSCCL's simulator and runtime share one algorithm file.

#include <string>

#include "algorithms/schedule/schedule.hpp"

namespace ddl {

// The schedule in `path` (the JSON `ddlsim schedule --json` writes), proved by the verifier to compute its
// collective before anything runs it: a schedule that would deadlock, race or leave a wrong result is bad
// input. Throws InvalidArgument naming `field` (the option) and the file.
Schedule loadVerifiedSchedule(const std::string& path, const std::string& field);

}  // namespace ddl
