#pragma once
// `ddlsim SCENARIO --plot FILE`: the scaling curves drawn by analysis/plot_scaling (matplotlib), which ddlsim
// runs under a Python that has matplotlib, found before any simulation starts.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace ddl {

struct ScalingPlotter {
  std::string python;  // an interpreter that imports matplotlib
  std::string script;  // analysis/plot_scaling of this source tree
};

// InvalidArgument("--plot", ...) if `out` does not end in .png, .svg or .pdf, or there is no plot_scaling or
// no Python with matplotlib (Debian: python3-matplotlib).
ScalingPlotter findScalingPlotter(const std::string& out);

// Draws `results` (ddlsim's results JSON) with the published points of the scenario at `scenarioPath` into
// `out`, written whole or not at all. Throws std::runtime_error with the plotter's exit status if it fails.
void plotScaling(const ScalingPlotter& plotter, const nlohmann::json& results, const std::string& scenarioPath,
                 const std::string& out);

}  // namespace ddl
