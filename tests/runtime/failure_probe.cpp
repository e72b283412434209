// A job that loses a rank: ranks run ring allreduces through the runtime; after the first, rank 1 either
// exits without a word ("exit") or stops taking part ("hang"). The job must end with a non-zero status
// well within the runtime's timeout, instead of hanging. Driven by job_ends_when_a_rank_fails.sh.
//
//   mpirun -np 4 failure_probe exit|hang TIMEOUT_MS

#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/collectives/registry.hpp"
#include "runtime/mpi/mpi_transport.hpp"
#include "runtime/program_runner.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc > 1 ? argv[1] : "exit";
  const int timeoutMs = argc > 2 ? std::atoi(argv[2]) : 3000;
  ddl::MpiTransport transport(MPI_COMM_WORLD);
  ddl::ProgramRunner runner(transport, {1 << 20, std::chrono::milliseconds(timeoutMs)});
  const ddl::Elements count = 1 << 16;
  const ddl::Program program = ddl::makeSchedule(ddl::findAlgorithm(ddl::CollectiveKind::Allreduce, "ring"),
                                                 {ddl::CollectiveKind::Allreduce, transport.size(), count, 4}, {})
                                   .program(transport.rank());
  std::vector<float> buffer(static_cast<std::size_t>(count), 1.0f);
  for (int round = 0; round < 1000; ++round) {
    if (round == 1 && transport.rank() == 1) {
      if (mode == "exit") _exit(7);
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    try {
      runner.run(program, buffer.data(), ddl::DataType::Float32);
    } catch (const ddl::TransportError& error) {
      transport.abortJob(std::string("allreduce: ") + error.what());
    }
  }
  MPI_Finalize();
  return 0;
}
