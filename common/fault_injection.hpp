#pragma once
// Faults on demand, for the tests that prove a job ends when one of its ranks stops answering:
//
//   DDLRUN_FREEZE=POINT:RANK[:stop|spin|fail|sleep=SECONDS]
//
// makes rank RANK stop itself with SIGSTOP (stop, the default), compute forever (spin), throw an error of
// its own, as a bug would (fail), or sleep SECONDS and go on (sleep=, a rank that is slow but alive), when it
// reaches POINT: init (before MPI_Init), setup (before the first exchange with the other ranks), barrier
// (before a timing barrier), allreduce (before running a schedule), baseline (before the library's
// collective), in-baseline (inside the MPI library's collective, once the watchdog counts this rank as in
// it: a library collective that is slow on this rank), compute (a training iteration's backward pass),
// results (before gathering the results) or finalize (before the last barrier); in `mpirun ddlsim`
// (sim/sweep/mpi_sweep_main.cpp), results (once the shares are gathered, before rank 0's results are
// awaited) and finalize. It says so on stderr first. Unset, it costs one comparison per point.

namespace ddl {

// `rank` is this process's rank in the job.
void freezeIfAsked(const char* point, int rank);

}  // namespace ddl
