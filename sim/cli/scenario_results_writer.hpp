#pragma once
// Everything a scenario's sweep writes, in one place: its results as a table, JSON or CSV, and the values
// of an MPI rank's share of its simulations (the format `ddlsim-mpi` gathers, sim/README.md, "Sweeps over
// an MPI job").

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/training/iteration_plan.hpp"
#include "algorithms/training/scaling_point.hpp"
#include "scenarios/scenario.hpp"
#include "sim/sweep/scenario_sweep.hpp"

namespace ddl {

enum class ResultsFormat { Table, Json, Csv };

// Writes `results`, whose JSON `document` (resultsToJson: checked to hold no NaN or infinity, whatever the
// format, since a figure that is not finite is an internal error, not output) is made once by the caller, to `path` (standard output if empty) in `format`; the table
// describes the scenario and its plan above the points.
void writeScenarioResults(const std::string& path, ResultsFormat format, const Scenario& scenario, const IterationPlan& plan,
                          const ScalingResults& results, const nlohmann::json& document);

// A share's values: {"sweep": SIGNATURE, "simulations": N, "values": [[simulation, [value, ...]], ...]}, the
// signature ScenarioSweep::signature's. JSON numbers round-trip a double exactly, so a split sweep's results
// are the bytes one process gives.
void writeShareValues(const std::string& path, const ScenarioSweep& sweep, const std::vector<std::size_t>& mine,
                      const std::vector<std::vector<double>>& values);
// Every simulation's values from the shares' files, each simulation in exactly one, every share of this
// very sweep; InvalidArgument naming --sweep-values otherwise.
std::vector<std::vector<double>> readShareValues(const std::vector<std::string>& paths, const ScenarioSweep& sweep);

}  // namespace ddl
