#include "common/launcher_environment.hpp"

#include <cstdlib>
#include <initializer_list>

namespace ddl {
namespace {

// This node's entry of Slurm's SLURM_STEP_TASKS_PER_NODE, "2(x3),1": 2 tasks on each of the first three
// nodes, 1 on the fourth; this node is number SLURM_NODEID. 0 where Slurm did not say.
int slurmTasksOnThisNode() {
  const char* list = std::getenv("SLURM_STEP_TASKS_PER_NODE");
  if (!list) list = std::getenv("SLURM_TASKS_PER_NODE");
  const char* node = std::getenv("SLURM_NODEID");
  if (!list) return 0;
  long remaining = node ? std::atol(node) : 0;
  const char* at = list;
  while (*at) {
    char* end = nullptr;
    const long tasks = std::strtol(at, &end, 10);
    if (end == at || tasks < 1) return 0;
    long repeat = 1;
    if (end[0] == '(' && end[1] == 'x') {
      repeat = std::strtol(end + 2, &end, 10);
      if (*end != ')' || repeat < 1) return 0;
      ++end;
    }
    if (remaining < repeat) return static_cast<int>(tasks);
    remaining -= repeat;
    if (*end != ',') return 0;
    at = end + 1;
  }
  return 0;
}

}  // namespace

int launcherLocalRank() {
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
    const char* value = std::getenv(variable);
    if (!value || !*value) continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0 && rank < (1L << 20)) return static_cast<int>(rank);
  }
  return 0;
}

int launcherRanksOnThisHost() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "LOCAL_WORLD_SIZE"})
    if (const char* value = std::getenv(name); value && std::atoi(value) > 0) return std::atoi(value);
  if (const int tasks = slurmTasksOnThisNode(); tasks > 0) return tasks;
  return 1;
}

}  // namespace ddl
