#pragma once
// The GPU jobs of job_launcher: NCCL under MPI, and CUDA peer copies among threads of one process.

#include <functional>

#include "runtime/job_launcher.hpp"

namespace ddl {

int launchNcclJob(const JobOptions& options, const std::function<int(RankContext&)>& job);
int launchCudaPeerJob(const JobOptions& options, const std::function<int(RankContext&)>& job);

// The number of visible CUDA devices; 0, with CUDA's reason in `why`, where there is none or no driver.
int cudaDevices(std::string* why = nullptr);

// The free memory of the visible device that has the least (cudaMemGetInfo); 0 where there is none.
double smallestFreeGpuMemoryBytes();

}  // namespace ddl
