// ddlsim: predicts how data-parallel training scales on a cluster, with which allreduce.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/cli_checks.hpp"
#include "common/invalid_argument.hpp"
#include "sim/cli/algorithms_command.hpp"
#include "sim/cli/calibrate_command.hpp"
#include "sim/cli/collective_command.hpp"
#include "sim/cli/effects_command.hpp"
#include "sim/cli/model_command.hpp"
#include "sim/cli/platform_command.hpp"
#include "sim/cli/scenario_command.hpp"
#include "sim/cli/schedule_command.hpp"
#include "sim/cli/tune_command.hpp"
#include "sim/engine/simulation_error.hpp"

namespace {

// The ranks of the MPI job this process is a rank of, as the launcher says before MPI_Init (Open MPI's
// mpirun, or a PMI launcher such as MPICH's and srun --mpi=pmi2); 1 outside one.
int mpiJobRanks() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  return 1;
}

// Under `mpirun -np K` (K > 1) this process becomes ddlsim-mpi (sim/sweep/mpi_sweep_main.cpp), which splits the
// sweep over the job's ranks and runs this ddlsim for each share: SimGrid's library defines MPI's symbols,
// so ddlsim itself cannot call MPI. Returns only where there is nothing to hand over.
void handOverToMpiRanks(CLI::App& app, int argc, char** argv) {
  if (mpiJobRanks() <= 1 || std::getenv("DDLSIM_MPI_RANK")) return;
  const auto named = [&](CLI::App* command) { return argc > 1 && command->check_name(argv[1]); };
  if (!app.get_subcommands(named).empty()) {
    std::cerr << "ddlsim: only a scenario's sweep splits over the ranks of an MPI job; run 'ddlsim " << argv[1]
              << "' as one process\n";
    std::exit(2);
  }
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const std::string helper = (self.parent_path() / "ddlsim-mpi").string();
  setenv("DDLSIM_PROGRAM", self.c_str(), 1);
  argv[0] = const_cast<char*>(helper.c_str());
  execv(helper.c_str(), argv);
  std::cerr << "ddlsim: under mpirun, ddlsim runs " << helper << ", which cannot be run\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "ddlsim - predict data-parallel training scaling on a simulated cluster (SimGrid), and inspect collective "
      "schedules.\n\n"
      "  ddlsim SCENARIO [--json|--csv] [--out FILE]   simulate a scenario's sweep (scenarios/*.json); --samples N\n"
      "                                                 adds a 90% interval over its uncertain inputs' priors\n"
      "  ddlsim collective ...                          simulate one collective on a topology\n"
      "  ddlsim tune ...                                rank every algorithm and its parameters per size\n"
      "  ddlsim platform TOPOLOGY [--xml]               describe a topology, or export it as SimGrid XML\n"
      "  ddlsim schedule ...                            generate, verify and cost a schedule\n"
      "  ddlsim algorithms [--names]                    list the algorithms and their options\n"
      "  ddlsim effects [--json]                        list the effects beyond compute and communication\n"
      "  ddlsim calibrate effects|network ...           fit effects or a link level from ddlrun's measurements\n"
      "  ddlsim model import PROFILE --gpu NAME         a model file from a PyTorch profile of one training step"};
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
  ddl::addModelCommand(app, exitCode);
  ddl::addVersionFlag(app, "ddlsim");
  handOverToMpiRanks(app, argc, argv);
  try {
    ddl::requireKnownNames(app, argc, argv, true);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    std::cerr << "ddlsim: " << error.what() << " (see ddlsim --help)\n";
    return 2;
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
