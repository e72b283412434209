/* ddlscale's library: the collectives of ddlrun, called from a training framework's own processes.
 *
 * In the spirit of PowerAI DDL's ddl_init / ddl_allreduce: a program that already runs under MPI makes a
 * communicator from an MPI communicator, and one started by another launcher (torchrun, Slurm, a script)
 * from its rank, the job's size and rank 0's address, over TCP; it chooses an algorithm per collective (by name with its options, by
 * a tuning table that `ddlsim tune` wrote, or from a schedule file that `ddlsim schedule --json` wrote),
 * and calls allreduce, reduce-scatter, all-gather, broadcast, all-to-all, barrier, send and receive on host
 * memory (or, built with CUDA, the collectives on GPU memory over NCCL), synchronously or with a request to
 * wait on. The schedules are those ddlsim simulates and ddlrun measures, run by the same executor over
 * MPI point-to-point messages or TCP connections.
 *
 *   ddl_comm comm;
 *   if (ddl_comm_init_mpi(MPI_COMM_WORLD, &comm) != DDL_SUCCESS) fprintf(stderr, "%s\n", ddl_last_error());
 *   ddl_comm_set_algorithm(comm, DDL_ALLREDUCE, "ddl", "dims=4x16x4");
 *   ddl_allreduce(comm, gradients, gradients, count, DDL_FLOAT32, DDL_SUM);   (in place)
 *   ddl_comm_destroy(comm);                                            (before MPI_Finalize)
 *
 * or, without MPI, in each of the job's processes:
 *
 *   ddl_comm_init_tcp(rank, size, "10.0.0.1:29500", &comm);            (rank 0 listens there)
 *
 * Build against it with CMake (find_package(ddlscale) and the target ddlscale::ddlscale) or pkg-config
 * (`pkg-config --cflags --libs ddlscale`).
 *
 * Every call returns a ddl_result. On anything but DDL_SUCCESS, ddl_last_error() says what was wrong, in
 * this thread, naming the argument ("algorithm: unknown 'rign' (known: ring, ...)"). A DDL_INVALID_ARGUMENT
 * is found before anything runs: this rank ran nothing and touched no buffer. (Bad arguments that differ
 * between ranks, a count one rank gives and another does not, are the caller's error, as in MPI.) A peer that stops answering for longer than the timeout (ddl_comm_set_timeout,
 * 30 s by default) ends the whole MPI job through MPI_Abort, with a message naming the wait, as ddlrun
 * does: the other ranks cannot be left waiting in a collective that will never complete, and MPI cannot
 * withdraw a message in flight. Over TCP the call returns DDL_ABORTED instead, naming the wait, and the
 * process goes on: the rank gives its communicator up (closing its connections, as NCCL's ncclCommAbort
 * does), never touches the call's buffers again, and every rank then waiting on it hears the same within
 * its own timeout; each destroys its communicator and decides what to do (a framework raises, a launcher
 * restarts the job).
 *
 * Threads: calls on one communicator may come from any thread MPI allows to call it, one at a time, and
 * every rank must issue the communicator's collectives in the same order, as in MPI. Where MPI was
 * initialised with MPI_THREAD_MULTIPLE, and always over TCP, each communicator runs its collectives on a
 * thread of its own, in the order they were issued, so that the caller can compute while one is in flight
 * (ddl_iallreduce, then ddl_wait). Otherwise each collective runs in the calling thread when it is issued,
 * and its request is complete when the call returns.
 */
#ifndef DDLSCALE_DDLSCALE_H
#define DDLSCALE_DDLSCALE_H

#include <stddef.h>

/* <mpi.h> is needed only by the communicators made from an MPI communicator (ddl_comm_init_mpi and
 * ddl_comm_init_nccl): where the compiler finds no <mpi.h>, or DDLSCALE_NO_MPI is defined, this header
 * declares everything else, so that a job without MPI builds against the TCP communicator alone. */
#if !defined(DDLSCALE_NO_MPI) && defined(__has_include)
#if __has_include(<mpi.h>)
#include <mpi.h>
#define DDLSCALE_HAS_MPI 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DDL_API __attribute__((visibility("default")))
#else
#define DDL_API
#endif

/* The library's version: DDL_VERSION_MAJOR * 10000 + DDL_VERSION_MINOR * 100 + DDL_VERSION_PATCH. */
#define DDL_VERSION_MAJOR 0
#define DDL_VERSION_MINOR 2
#define DDL_VERSION_PATCH 0
DDL_API int ddl_version(void);

typedef enum {
  DDL_SUCCESS = 0,
  DDL_INVALID_ARGUMENT = 1, /* a bad argument: an unknown algorithm, options it does not take, a null buffer */
  DDL_UNSUPPORTED = 2,      /* valid, but not on this build or this communicator (device memory without CUDA) */
  DDL_INTERNAL_ERROR = 3,   /* a failure inside the library (an allocation); the message says which */
  DDL_ABORTED = 4,          /* a peer was lost (silent past the timeout, or gone): the communicator is given up, every
                               later call on it returns DDL_ABORTED, and ddl_comm_destroy frees it (TCP only) */
  DDL_RESULT_MIN_ENUM = -0x7fffffff - 1,
  DDL_RESULT_MAX_ENUM = 0x7fffffff
} ddl_result;

/* Each enum spans every int (its _MIN_ENUM and _MAX_ENUM), so that any value a C caller passes is one the library can
 * read and refuse, as Vulkan's enums do. */
typedef enum {
  DDL_FLOAT32 = 0,
  DDL_FLOAT64 = 1,
  DDL_FLOAT16 = 2,
  DDL_BFLOAT16 = 3,
  DDL_INT8 = 4, /* integers wrap on overflow (two's complement), as NCCL's do */
  DDL_UINT8 = 5,
  DDL_INT32 = 6,
  DDL_INT64 = 7,
  DDL_DATATYPE_MIN_ENUM = -0x7fffffff - 1,
  DDL_DATATYPE_MAX_ENUM = 0x7fffffff
} ddl_datatype;

/* How a reduction combines the ranks' elements. DDL_AVG is the sum divided by the ranks at the end (integers
 * divide truncating toward zero), as NCCL's ncclAvg. */
typedef enum {
  DDL_SUM = 0,
  DDL_PROD = 1,
  DDL_MIN = 2,
  DDL_MAX = 3,
  DDL_AVG = 4,
  DDL_OP_MIN_ENUM = -0x7fffffff - 1,
  DDL_OP_MAX_ENUM = 0x7fffffff
} ddl_op;

typedef enum {
  DDL_ALLREDUCE = 0,
  DDL_ALLGATHER = 1,
  DDL_REDUCE_SCATTER = 2,
  DDL_COLLECTIVE_MIN_ENUM = -0x7fffffff - 1,
  DDL_COLLECTIVE_MAX_ENUM = 0x7fffffff
} ddl_collective;

typedef struct ddl_comm_s* ddl_comm;
typedef struct ddl_request_s* ddl_request;

/* What went wrong in this thread's last call that did not return DDL_SUCCESS; "" before any. The text
 * stays valid until this thread's next call into the library. */
DDL_API const char* ddl_last_error(void);

/* ---- Communicators ---------------------------------------------------------------------------------- */

/* A communicator over the ranks of `mpi_comm`, which must be an intra-communicator. Collective: every rank
 * of `mpi_comm` calls it. The library duplicates `mpi_comm`, so its messages never meet the caller's. MPI
 * must be initialised, and stay so until ddl_comm_destroy. Every collective starts as "ring". It returns once
 * every rank has come, waiting up to 30 s for the last one: where one never comes (it stopped, ended, or
 * called something else), DDL_INTERNAL_ERROR saying so, and the caller goes on (MPI cannot cancel the
 * duplicate left in progress, so `mpi_comm` is best not used for collectives after it). */
#ifdef DDLSCALE_HAS_MPI
DDL_API ddl_result ddl_comm_init_mpi(MPI_Comm mpi_comm, ddl_comm* comm);

/* A communicator of GPU memory: every buffer its collectives take is memory of this rank's GPU, moved by
 * NCCL point-to-point and summed by CUDA kernels; MPI carries only the communicator's own agreements. One
 * process per GPU: a rank uses the GPU of its local rank on its node (modulo the node's GPUs), made current
 * in the calling thread and in the communicator's own. Collective over `mpi_comm`. DDL_UNSUPPORTED, on
 * every rank alike, where the library was built without CUDA or a rank sees no GPU; a host buffer given to
 * its collectives is DDL_INVALID_ARGUMENT. */
DDL_API ddl_result ddl_comm_init_nccl(MPI_Comm mpi_comm, ddl_comm* comm);
#endif

/* A communicator over TCP, for a job without MPI: each of the job's `size` processes calls it with its own
 * `rank` (0 .. size-1) and the same `root_address`, "host:port" (IPv4, a name or dotted), where rank 0
 * listens and the others connect; then every two ranks connect to each other. It returns once every rank
 * has come, waiting up to 30 s for the last one. Where the ranks disagree (two give the same rank, or
 * another size) every rank that came fails alike with DDL_INVALID_ARGUMENT naming the rank; a rank that
 * never comes, or an address rank 0 cannot listen at, fails with DDL_INTERNAL_ERROR naming the wait.
 * Messages of up to DDLSCALE_TCP_EAGER_LIMIT bytes (the environment's, as "64K" or "1M"; 64 KiB, Open
 * MPI's, where unset) go at once; larger ones wait until their receive is posted (rendezvous), which keeps
 * pairwise exchanges from running one direction at a time. A bad value is DDL_INVALID_ARGUMENT naming it.
 * Messages go in this machine's byte order: the ranks run one build on one kind of machine. */
DDL_API ddl_result ddl_comm_init_tcp(int rank, int size, const char* root_address, ddl_comm* comm);

/* Collective: waits for the communicator's collectives still in flight, then frees it. Null is ignored.
 * Handles are never reused: a communicator (or request) used after it was destroyed (or waited for), or
 * one never made, is DDL_INVALID_ARGUMENT naming it, never memory read after it was freed. */
DDL_API ddl_result ddl_comm_destroy(ddl_comm comm);

DDL_API ddl_result ddl_comm_rank(ddl_comm comm, int* rank);
DDL_API ddl_result ddl_comm_size(ddl_comm comm, int* size);

/* How long a wait may pass with nothing arriving before the job is ended: 1 s to a day (30 s by default). */
DDL_API ddl_result ddl_comm_set_timeout(ddl_comm comm, double seconds);

/* ---- Choosing the algorithm ---------------------------------------------------------------------------
 * Each applies to the collectives issued after it. Each is collective: every rank calls it with the same
 * choice, and every rank takes it or none does (where one rank refuses, a file missing on its machine say,
 * or the ranks' choices differ, all return DDL_INVALID_ARGUMENT and keep their previous choice). */

/* By name, as `ddlrun bench --algorithm NAME` and `ddlsim algorithms` know them ("ring", "ddl",
 * "halving-doubling", "hierarchical", ...), with its options as space-separated name=value pairs, the
 * flags' names and values without the dashes ("dims=4x16x4", "ranks-per-node=4 inner=ring",
 * "chunk-bytes=512K"); `options` may be null or "". Checked against this communicator's rank count now. */
DDL_API ddl_result ddl_comm_set_algorithm(ddl_comm comm, ddl_collective collective, const char* name,
                                          const char* options);

/* "auto": a tuning table (`ddlsim tune --json --out FILE`) chooses per call, at the table's size nearest to
 * the call's bytes. The table must be for this collective and this communicator's rank count. */
DDL_API ddl_result ddl_comm_set_tuning(ddl_comm comm, ddl_collective collective, const char* path);

/* A schedule file (`ddlsim schedule --json`), verified before it is accepted: it runs the calls whose
 * element count and element size are the schedule's (for DDL_ALLGATHER, the schedule's count is the whole
 * gathered buffer: size x ddl_allgather's count); others fail with DDL_INVALID_ARGUMENT. */
DDL_API ddl_result ddl_comm_set_schedule(ddl_comm comm, ddl_collective collective, const char* path);

/* What runs a collective of `bytes` bytes now ("ddl 4x16x4", "ring"), in `text` of `capacity` bytes,
 * truncated to fit and always terminated. */
DDL_API ddl_result ddl_comm_describe(ddl_comm comm, ddl_collective collective, size_t bytes, char* text,
                                     size_t capacity);

/* ---- Collectives ---------------------------------------------------------------------------------------
 * Buffers are host memory (GPU memory on a communicator of ddl_comm_init_nccl), not touched by the caller
 * until the collective completes. On the GPU the collective runs on the communicator's own streams, after
 * the work queued before the call on the default stream and on blocking streams; work queued on the caller's
 * non-blocking streams (cudaStreamNonBlocking, as frameworks' streams often are) must be synchronised first.
 * `send` may equal `recv` (in place); otherwise GPU buffers may not overlap (DDL_INVALID_ARGUMENT). Reductions are in the element type
 * (float16 and bfloat16 round each operation to nearest even; integers wrap), in the order the algorithm
 * combines, which differs from one algorithm to another: float sums and products differ in their last bits
 * between algorithms, minima, maxima and integer results do not. */

/* With DDLSCALE_CHECK_AGREEMENT=1 in every rank's environment when the communicator is made, every collective
 * is checked so (a round trip through rank 0 per call: measured 2026-12-06 through the PyTorch backend, 2 ranks
 * over MPI on one host, medians of three alternating runs, 41.0 -> 45.3 us at 4 KiB (+10%), 72.2 -> 77.4 us at
 * 64 KiB (+7%); at 1 MiB the noise, 240-283 us, hides it), and ranks
 * that disagree on the type, count or op get DDL_INVALID_ARGUMENT instead of wrong results. */

/* Every rank's `recv` ends with the element-wise reduction by `op` over the ranks of their `send` (`count`
 * elements). */
DDL_API ddl_result ddl_allreduce(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type, ddl_op op);
DDL_API ddl_result ddl_iallreduce(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type, ddl_op op,
                                  ddl_request* request);

/* Rank r's `recv` (`recvcount` elements) ends with block r of the element-wise reduction by `op` over the
 * ranks of their `send` (size x `recvcount` elements): the block at r x recvcount. `send` is left as it was.
 * In place: `recv` is `send` + rank x recvcount. Runs the DDL_REDUCE_SCATTER choice. */
DDL_API ddl_result ddl_reduce_scatter(ddl_comm comm, const void* send, void* recv, size_t recvcount, ddl_datatype type,
                                      ddl_op op);
DDL_API ddl_result ddl_ireduce_scatter(ddl_comm comm, const void* send, void* recv, size_t recvcount, ddl_datatype type,
                                       ddl_op op, ddl_request* request);

/* Every rank's `recv` (size x `count` elements) ends with rank r's `send` (`count` elements) at r x count.
 * In place: `send` is `recv` + rank x count. Runs the DDL_ALLGATHER choice. */
DDL_API ddl_result ddl_allgather(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type);
DDL_API ddl_result ddl_iallgather(ddl_comm comm, const void* send, void* recv, size_t count, ddl_datatype type,
                                  ddl_request* request);

/* Every rank's `buffer` ends with rank `root`'s, bit for bit: the root sends block r of it to rank r, then
 * the ranks all-gather the blocks (van de Geijn's broadcast), with the DDL_ALLGATHER choice. The ranks first
 * check that they agree on the root, type and count: where they do not, every rank returns
 * DDL_INVALID_ARGUMENT naming both calls, nothing moves, and the communicator stays usable. */
DDL_API ddl_result ddl_broadcast(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int root);
DDL_API ddl_result ddl_ibroadcast(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int root,
                                  ddl_request* request);

/* Every rank sends sendcounts[r] elements at sdispls[r] of `send` to rank r, and receives recvcounts[r]
 * elements from rank r into `recv` at rdispls[r] (MPI_Alltoallv; counts and displacements in elements, one
 * each per rank). Rank r's sendcounts[q] must equal rank q's recvcounts[r]; this rank's own block is copied.
 * Moves bits: any type. Every message is at most 2 GiB. On a communicator of GPU memory: DDL_UNSUPPORTED. */
DDL_API ddl_result ddl_alltoallv(ddl_comm comm, const void* send, const size_t* sendcounts, const size_t* sdispls, void* recv,
                                 const size_t* recvcounts, const size_t* rdispls, ddl_datatype type);
DDL_API ddl_result ddl_ialltoallv(ddl_comm comm, const void* send, const size_t* sendcounts, const size_t* sdispls,
                                  void* recv, const size_t* recvcounts, const size_t* rdispls, ddl_datatype type,
                                  ddl_request* request);

/* ---- Point-to-point ------------------------------------------------------------------------------------
 * `count` elements to or from rank `peer` (not this rank), matched with the peer's receive or send of the same
 * `tag` (0 .. 1023) in the order each side issued them, in order with the communicator's collectives. A send
 * completes once its bytes are on their way: above the eager limit (DDLSCALE_TCP_EAGER_LIMIT over TCP; MPI's
 * own), only once the receive is posted, so two ranks that each send the other a large message before they
 * receive wait for each other until the timeout, as MPI_Send's unsafe programs do. A receive must give the
 * message's exact size. On a communicator of GPU memory: DDL_UNSUPPORTED. */
DDL_API ddl_result ddl_send(ddl_comm comm, const void* buffer, size_t count, ddl_datatype type, int peer, int tag);
DDL_API ddl_result ddl_isend(ddl_comm comm, const void* buffer, size_t count, ddl_datatype type, int peer, int tag,
                             ddl_request* request);
DDL_API ddl_result ddl_recv(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int peer, int tag);
DDL_API ddl_result ddl_irecv(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int peer, int tag,
                             ddl_request* request);
/* A receive of the next message of `tag` from whichever rank sends one first (MPI_ANY_SOURCE); `*source`
 * says which, once the call returns (ddl_recv_any) or its request completes (ddl_irecv_any: `source` must stay
 * valid until then). Messages of one sender still come in the order it sent them. */
DDL_API ddl_result ddl_recv_any(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int tag, int* source);
DDL_API ddl_result ddl_irecv_any(ddl_comm comm, void* buffer, size_t count, ddl_datatype type, int tag, int* source,
                                 ddl_request* request);

/* Returns once every rank has called it, after this rank's earlier collectives on `comm` completed; a rank
 * that does not arrive within the timeout ends the job. */
DDL_API ddl_result ddl_barrier(ddl_comm comm);

/* ---- Requests ------------------------------------------------------------------------------------------ */

/* Waits for the collective to complete and frees the request; its result is the collective's. */
DDL_API ddl_result ddl_wait(ddl_request request);
/* Sets *done to 1 if the collective has completed (the request must still be waited on), else 0. */
DDL_API ddl_result ddl_test(ddl_request request, int* done);

#ifdef __cplusplus
}
#endif

#endif /* DDLSCALE_DDLSCALE_H */
