#pragma once
// The generic α-β-γ estimate of any schedule: run it under ProgramExecution's rules charging every message
// α + bytes·β on the link it crosses and every reduction bytes·γ, without contention, and report when the
// last step completes. Each algorithm's closed form must equal this walk of its own schedule.

#include "algorithms/cost/cost_model.hpp"
#include "algorithms/schedule/schedule.hpp"

namespace ddl {

// Throws std::invalid_argument if the schedule does not run to completion; verify it first.
double walkSeconds(const Schedule& schedule, const CostModel& model);

}  // namespace ddl
