// ddlsim: predicts how data-parallel training scales on a cluster, with which allreduce.

#include <iostream>

#include <CLI/CLI.hpp>

#include "algorithms/schedule/invalid_argument.hpp"
#include "sim/schedule_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"ddlsim - predict data-parallel training scaling and inspect collective schedules"};
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 on success, 1 if a verified schedule is wrong, 2 on bad input.\n"
      "Run 'ddlsim SUBCOMMAND --help' for the options of each subcommand.");
  int exitCode = 0;
  ddl::addScheduleCommand(app, exitCode);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  } catch (const ddl::InvalidArgument& error) {
    std::cerr << "ddlsim: " << error.what() << '\n';
    return 2;
  }
  return exitCode;
}
