#pragma once
// Where this process stands on its machine, as the job's launcher tells each process in its environment
// before MPI starts: the one reading of it that ddlrun (its memory checks, its GPUs per process) and the
// PyTorch package (ddlscale_torch.memory, through the extension) share.

namespace ddl {

// This process's index among the job's processes on its machine (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK,
// MPICH's MPI_LOCALRANKID, Slurm's SLURM_LOCALID); 0 where none does.
int launcherLocalRank();

// Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS, torchrun's LOCAL_WORLD_SIZE, else this
// node's entry of Slurm's SLURM_STEP_TASKS_PER_NODE (or SLURM_TASKS_PER_NODE); 1 where no launcher says.
int launcherRanksOnThisHost();

}  // namespace ddl
