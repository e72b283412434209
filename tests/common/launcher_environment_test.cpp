// How many ranks share this machine, read from what each launcher puts in a process's environment: the
// first launcher that says wins, Slurm's compressed tasks-per-node list is read at this node's index, and a
// process no launcher started counts itself alone.

#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/launcher_environment.hpp"

namespace ddl {
namespace {

// Sets the launcher variables given and clears the others, restoring every one when it goes.
class LauncherEnvironment {
 public:
  LauncherEnvironment(std::initializer_list<std::pair<const char*, const char*>> values) {
    for (const char* name : kNames) {
      if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
      ::unsetenv(name);
    }
    for (const auto& [name, value] : values) ::setenv(name, value, 1);
  }
  ~LauncherEnvironment() {
    for (const char* name : kNames) ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  static constexpr const char* kNames[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "LOCAL_WORLD_SIZE",
                                           "SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE", "SLURM_NODEID"};
  std::vector<std::pair<std::string, std::string>> saved_;
};

TEST(LauncherEnvironment, AProcessNoLauncherStartedIsAlone) {
  const LauncherEnvironment none({});
  EXPECT_EQ(launcherRanksOnThisHost(), 1);
}

TEST(LauncherEnvironment, MpiLaunchersAndTorchrunSayTheirLocalSize) {
  {
    const LauncherEnvironment openMpi({{"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 4);
  }
  {
    const LauncherEnvironment mpich({{"MPI_LOCALNRANKS", "3"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 3);
  }
  {
    const LauncherEnvironment torchrun({{"LOCAL_WORLD_SIZE", "8"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 8);
  }
  {
    const LauncherEnvironment nonsense({{"OMPI_COMM_WORLD_LOCAL_SIZE", "0"}, {"LOCAL_WORLD_SIZE", "x"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 1);
  }
}

TEST(LauncherEnvironment, SlurmsTasksPerNodeAreReadAtThisNode) {
  {
    const LauncherEnvironment third({{"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}, {"SLURM_NODEID", "2"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 2);
  }
  {
    const LauncherEnvironment fourth({{"SLURM_STEP_TASKS_PER_NODE", "2(x3),1"}, {"SLURM_NODEID", "3"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 1);
  }
  {
    const LauncherEnvironment allocation({{"SLURM_TASKS_PER_NODE", "6"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 6);
  }
  {
    const LauncherEnvironment beyond({{"SLURM_STEP_TASKS_PER_NODE", "2(x3)"}, {"SLURM_NODEID", "5"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 1);
  }
  {
    const LauncherEnvironment mpiFirst({{"OMPI_COMM_WORLD_LOCAL_SIZE", "4"}, {"SLURM_TASKS_PER_NODE", "6"}});
    EXPECT_EQ(launcherRanksOnThisHost(), 4);
  }
}

}  // namespace
}  // namespace ddl
