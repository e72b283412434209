// ddlsim: predicts how data-parallel training scales on a cluster, with which allreduce.

#include <iostream>

#include <CLI/CLI.hpp>

#include "common/invalid_argument.hpp"
#include "sim/algorithms_command.hpp"
#include "sim/calibrate_command.hpp"
#include "sim/collective_command.hpp"
#include "sim/effects_command.hpp"
#include "sim/platform_command.hpp"
#include "sim/scenario_command.hpp"
#include "sim/schedule_command.hpp"
#include "sim/simulation_error.hpp"
#include "sim/tune_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "ddlsim - predict data-parallel training scaling on a simulated cluster (SimGrid), and inspect collective "
      "schedules.\n\n"
      "  ddlsim SCENARIO [--json|--csv] [--out FILE]   simulate a scenario's sweep (scenarios/*.json); --range\n"
      "                                                 also spans its sourced effects' ranges\n"
      "  ddlsim collective ...                          simulate one collective on a topology\n"
      "  ddlsim tune ...                                rank every algorithm and its parameters per size\n"
      "  ddlsim platform TOPOLOGY [--xml]               describe a topology, or export it as SimGrid XML\n"
      "  ddlsim schedule ...                            generate, verify and cost a schedule\n"
      "  ddlsim algorithms [--names]                    list the algorithms and their options\n"
      "  ddlsim effects [--json]                        list the effects beyond compute and communication\n"
      "  ddlsim calibrate effects|network ...           fit effects or a link level from ddlrun's measurements"};
  app.require_subcommand(0, 1);
  app.footer(
      "Exit status: 0 on success; 1 if a simulation cannot run to its end or a verified schedule is wrong;\n"
      "2 on bad input (the message names the file and field). Run 'ddlsim SUBCOMMAND --help' for more.");
  int exitCode = 0;
  ddl::addScenarioCommand(app, exitCode);
  ddl::addScheduleCommand(app, exitCode);
  ddl::addCollectiveCommand(app, exitCode);
  ddl::addTuneCommand(app, exitCode);
  ddl::addPlatformCommand(app, exitCode);
  ddl::addAlgorithmsCommand(app, exitCode);
  ddl::addEffectsCommand(app, exitCode);
  ddl::addCalibrateCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  } catch (const ddl::InvalidArgument& error) {
    std::cerr << "ddlsim: " << error.what() << '\n';
    return 2;
  } catch (const ddl::SimulationError& error) {
    std::cerr << "ddlsim: " << error.what() << '\n';
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "ddlsim: " << error.what() << '\n';
    return 1;
  }
  return exitCode;
}
