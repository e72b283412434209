#pragma once
// ddlsim's --plot FILE: results drawn by a plotter of analysis/ (matplotlib: plot_scaling for a scenario's
// curves, plot_tuning for a tuning table). ddlsim runs it under a python3, which runs itself again under one
// that has matplotlib (analysis/interpreter.py), and asks interpreter.py before any simulation starts whether
// there is one.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ddl {

struct PythonPlotter {
  std::string python;  // a python3 to start the plotter under
  std::string script;  // analysis/<name> of this source tree
};

// InvalidArgument("--plot", ...) if `out` does not end in .png, .svg or .pdf, or there is no analysis/`name`
// or no Python with matplotlib (Debian: python3-matplotlib).
PythonPlotter findPlotter(const std::string& out, const std::string& name);

// Runs the plotter on `results` (a JSON file it is given) with `arguments` after it and `--out out`; the
// plotter writes `out` whole or not at all. Throws std::runtime_error with its exit status if it fails.
// plot_scaling takes `--scenario PATH` for the scenario's published points.
void plotWithPython(const PythonPlotter& plotter, const nlohmann::json& results, const std::vector<std::string>& arguments,
                    const std::string& out);

}  // namespace ddl
