// Before a GPU job starts, ddlrun asks its GPUs for free memory, and each GPU asked gets a CUDA context of
// this process: it must ask only the GPUs this process's ranks will run on.

#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>

#include "common/launcher_environment.hpp"
#include "runtime/launch/job_launcher.hpp"

namespace ddl {
namespace {

TEST(GpusOfThisProcess, AreTheRanksOwnGpusNeverEveryVisibleOne) {
  // One process per rank (nccl): local rank 5 of 8 on a node of 8 GPUs runs on GPU 5 alone, as
  // NcclTransport chooses it (local rank modulo the GPUs).
  EXPECT_EQ(gpusOfThisProcess(false, 8, 8, 5), std::vector<int>{5});
  EXPECT_EQ(gpusOfThisProcess(false, 8, 4, 6), std::vector<int>{2});
  // Every rank a thread of one process (cuda-peer): rank r on GPU r modulo the GPUs, so the first few.
  EXPECT_EQ(gpusOfThisProcess(true, 2, 8, 0), (std::vector<int>{0, 1}));
  EXPECT_EQ(gpusOfThisProcess(true, 16, 8, 0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(gpusOfThisProcess(true, 4, 0, 0), std::vector<int>{}) << "no GPU: nothing to ask";
}

TEST(GpusOfThisProcess, TheLocalRankIsTheLaunchersBeforeMpiStarts) {
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) unsetenv(variable);
  EXPECT_EQ(launcherLocalRank(), 0) << "no launcher says: the first";
  setenv("SLURM_LOCALID", "3", 1);
  EXPECT_EQ(launcherLocalRank(), 3);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "6", 1);
  EXPECT_EQ(launcherLocalRank(), 6) << "Open MPI's first, as ddlrun runs under it";
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "six", 1);
  EXPECT_EQ(launcherLocalRank(), 3) << "a value that is no rank is passed over";
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) unsetenv(variable);
}

}  // namespace
}  // namespace ddl
