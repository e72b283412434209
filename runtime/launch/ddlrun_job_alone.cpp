// ddlrun's job in a build without MPI: the transports whose ranks are threads of this process (threads,
// cuda-peer, nccl-threads), run here. Nothing watches for silence between processes, for there is one
// process: a rank that gives up waiting ends it (runRankThreads).

#include <iostream>
#include <new>
#include <string>

#include "common/invalid_argument.hpp"
#include "runtime/launch/ddlrun_job.hpp"

namespace ddl {

int runJob(DdlrunCommand& command, int&, char**&, int launchRank, int launchSize) {
  try {
    // Under mpirun -np N (N > 1) each process would run a job of its own: checkJob refuses, as with MPI.
    command.checkForJob(launchSize);
    return command.launch(nullptr);
  } catch (const InvalidArgument& error) {
    if (launchRank == 0) std::cerr << "ddlrun: " + std::string(error.what()) + "\n";  // one write, as mpirun forwards it
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "ddlrun: out of memory (the estimates before the run did not foresee it)\n";
    return 3;
  } catch (const std::exception& error) {
    std::cerr << "ddlrun: internal error: " << error.what() << '\n';
    return 3;
  }
}

}  // namespace ddl
