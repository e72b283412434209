#include "sim/cli/python_plot.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/data_files.hpp"
#include "common/invalid_argument.hpp"
#include "common/scratch_file.hpp"


extern char** environ;

namespace ddl {
namespace {

// The exit status of `arguments` run without a shell (standard output discarded when `quiet`), or -1 if it
// could not start.
int runProgram(const std::vector<std::string>& arguments, bool quiet) {
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  pid_t child = 0;
  const int started = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

PythonPlotter findPlotter(const std::string& out, const std::string& name) {
  const std::string extension = std::filesystem::path(out).extension().string();
  if (extension != ".png" && extension != ".svg" && extension != ".pdf")
    throw InvalidArgument("--plot", "'" + out + "' must end in .png, .svg or .pdf");
  const std::filesystem::path analysis = dataDirectory() / "analysis";
  const std::string script = (analysis / name).string();
  if (access(script.c_str(), R_OK) != 0) throw InvalidArgument("--plot", "the plotter " + script + " is missing");
  // Any python3 runs the plotter, which runs itself again under one that has matplotlib; analysis/interpreter.py,
  // the one place that knows where to look, says whether there is one.
  const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  if (runProgram({python, (analysis / "interpreter.py").string(), "matplotlib"}, true) != 0)
    throw InvalidArgument("--plot", "needs a Python with matplotlib (Debian: apt-get install python3-matplotlib)");
  return {python, script};
}

void plotWithPython(const PythonPlotter& plotter, const nlohmann::json& results, const std::vector<std::string>& arguments,
                    const std::string& out) {
  const ScratchFile data("plot.json", results.dump() + "\n");
  std::vector<std::string> command{plotter.python, plotter.script, data.path()};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.insert(command.end(), {"--out", out});
  const int status = runProgram(command, false);
  if (status != 0) throw std::runtime_error("--plot: " + plotter.script + " exited with status " + std::to_string(status));
}

}  // namespace ddl
