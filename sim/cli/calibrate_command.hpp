#pragma once
// `ddlsim calibrate`: parameters fitted from ddlscale's own measurements, written into the files the
// simulator reads.
//
//   ddlsim calibrate effects SCENARIO TRAIN.json...   the effects from ddlrun train's measured_effects
//   ddlsim calibrate network TOPOLOGY BENCH.json...   α and β of a link level from ddlrun bench sweeps
//
// Each prints the fitted values with their residuals and, with --out, writes the calibrated file. A
// parameter the data cannot identify is refused (exit 2, naming it and why), and nothing is written.

#include <CLI/CLI.hpp>

namespace ddl {

void addCalibrateCommand(CLI::App& app, int& exitCode);

}  // namespace ddl
